// What a server offers besides its tools (prompts, resources, views and templates) follows the tools it
// shows: over stdio with --read-only, over --http with --read-only and fewer toolsets without the mirror,
// over both with a key that cannot write (once its scopes are known), and in hosted mode for a grant of a key
// that may only read customers and invoices. The test's ground
// truth is its own table of which tools each prompt and template works through, and the views the listed
// tools name in their _meta.
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessesFile } from './support/businesses-file.js';
import { type Connected, connectClient, type McpClient } from './support/clients.js';
import { openSignIn } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { MemoryOAuthProvider, oauthClient, startFlow } from './support/oauth-client.js';
import { REDIRECT } from './support/page-sign-in.js';
import { keyEnv, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

/** The tools each prompt sends the model to; it is worth offering only while they are all there. */
const PROMPT_NEEDS: Record<string, string[]> = {
  draft_invoice: ['create_draft_invoice', 'list_customers'],
  review_overdue_invoices: ['list_invoices'],
  summarise_customer: ['get_customer', 'list_invoices'],
  report_low_stock: ['list_products'],
};
const TEMPLATE_NEEDS: Record<string, string> = {
  'invoicing://customers/{id}': 'get_customer',
  'invoicing://invoices/{id}': 'get_invoice',
  'invoicing://quotes/{id}': 'get_quote',
  'invoicing://payments/{id}': 'get_payment',
  'invoicing://products/{id}': 'get_product',
};

interface Offer {
  tools: string[];
  prompts: string[];
  resources: string[];
  templates: string[];
  /** The views the listed tools name. */
  views: string[];
}

async function offerOf(client: McpClient): Promise<Offer> {
  const { tools } = (await client.listTools()) as { tools: { name: string; _meta?: { ui?: { resourceUri?: string } } }[] };
  const views = new Set(tools.flatMap((t) => (t._meta?.ui?.resourceUri ? [t._meta.ui.resourceUri] : [])));
  return {
    tools: tools.map((t) => t.name).sort(),
    prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
    resources: (await client.listResources()).resources.map((r) => r.uri).sort(),
    templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort(),
    views: [...views].sort(),
  };
}

/** Checks the offer against the tools it shows; `expectedTools` pins those first. */
function expectFollowsTools(offer: Offer, expectedTools: string[]): void {
  expect(offer.tools).toEqual([...expectedTools].sort());
  const shown = new Set(offer.tools);
  const prompts = Object.entries(PROMPT_NEEDS).flatMap(([name, needs]) => (needs.every((t) => shown.has(t)) ? [name] : []));
  expect(offer.prompts).toEqual(prompts.sort());
  const templates = Object.entries(TEMPLATE_NEEDS).flatMap(([uri, tool]) => (shown.has(tool) ? [uri] : []));
  expect(offer.templates).toEqual(templates.sort());
  expect(offer.resources.filter((uri) => uri.startsWith('ui://'))).toEqual(offer.views);
  const feeds = ['invoicing://business', 'invoicing://events', ...(shown.has('list_products') ? ['invoicing://products/low-stock'] : [])];
  expect(offer.resources.filter((uri) => !uri.startsWith('ui://'))).toEqual(feeds.sort());
}

const READS = ['list_customers', 'get_customer', 'list_invoices', 'get_invoice', 'list_quotes', 'get_quote'];
const MORE_READS = ['list_payments', 'get_payment', 'list_products', 'get_product'];
const READ_SCOPES = ['customers.read', 'invoices.read', 'quotes.read', 'payments.read', 'products.read'];
const ANSWERS = ['report_owed', 'report_sales', 'report_received', 'report_customer', 'report_quotes', 'report_low_stock', 'find_records'];

describe('stdio and --http', () => {
  const opened: Connected[] = [];
  afterAll(async () => {
    for (const c of opened) await c.close();
  });

  it('--read-only over stdio: no prompt that drafts, every read still offered', async () => {
    const c = await connectClient('v2', { linked: await stdioHere(['--read-only']) });
    opened.push(c);
    const offer = await offerOf(c.client);
    expectFollowsTools(offer, ['check_connection', ...READS, ...MORE_READS, ...ANSWERS]);
    expect(offer.prompts).not.toContain('draft_invoice');
  });

  it('--http --read-only --toolsets invoices,products --mirror off: the prompts, templates and views of those tools only', async () => {
    const http = await spawnHttpServer(['--read-only', '--toolsets', 'invoices,products', '--mirror', 'off']);
    try {
      const c = await connectClient('v1', { http: http.url });
      opened.push(c);
      const offer = await offerOf(c.client);
      expectFollowsTools(offer, ['check_connection', 'list_invoices', 'get_invoice', 'list_products', 'get_product']);
      // No answer tool: no chart view. get_invoice still shows a draft's review.
      expect(offer.views).toEqual(['ui://invoicing/draft']);
    } finally {
      await http.close();
    }
  });
});

describe('stdio and --http with a key that cannot do everything', () => {
  // The keys' scopes are learnt by a sign-in of the server's own: not made with SVC_POLL_SECONDS=0 (the test
  // servers' default), which turns the server's own calls off.
  const OWN_CALLS = { SVC_POLL_SECONDS: '60' };
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 1_000_000 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('over stdio, a key without write scopes: the session hears list_changed, then no write and no draft_invoice', async () => {
    const here = await stdioHere(['--mirror', 'memory'], { ...keyEnv(sb, await sb.makeKey('live', READ_SCOPES)), ...OWN_CALLS });
    const c = await connectClient('v1', { linked: here });
    try {
      const client = c.client as unknown as ClientV1;
      const heard = (schema: typeof ToolListChangedNotificationSchema | typeof PromptListChangedNotificationSchema) =>
        new Promise<void>((resolve) => client.setNotificationHandler(schema, () => resolve()));
      const toolsChanged = heard(ToolListChangedNotificationSchema);
      const promptsChanged = heard(PromptListChangedNotificationSchema);
      // The first lists are answered at once, before the key's scopes are known: everything.
      expect((await offerOf(c.client)).tools).toContain('create_draft_invoice');
      await Promise.all([toolsChanged, promptsChanged]);
      const offer = await offerOf(c.client);
      expectFollowsTools(offer, ['check_connection', ...READS, ...MORE_READS, ...ANSWERS]);
      expect(offer.prompts).not.toContain('draft_invoice');
    } finally {
      await c.close();
      await here.close();
    }
  });

  it('over --http, a 2025-era session of a key without write scopes hears list_changed, then no write', async () => {
    const http = await spawnHttpServer(['--mirror', 'off'], { ...keyEnv(sb, await sb.makeKey('live', READ_SCOPES)), ...OWN_CALLS });
    try {
      const c = await connectClient('v1', { http: http.url });
      const client = c.client as unknown as ClientV1;
      const promptsChanged = new Promise<void>((resolve) =>
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()),
      );
      await promptsChanged;
      const offer = await offerOf(c.client);
      await c.close();
      // --mirror off: no answer tools either.
      expectFollowsTools(offer, ['check_connection', ...READS, ...MORE_READS]);
    } finally {
      await http.close();
    }
  });

  it('two businesses over stdio: a tool stays while either key can use it, the writes go', async () => {
    const entry = (name: string, key: { key_id: string; secret: string }) => ({
      name,
      base_url: sb.baseUrl,
      key_id: key.key_id,
      secret: key.secret,
    });
    const file = businessesFile([
      entry('Counter', await sb.makeKey('live', ['customers.read', 'invoices.read'])),
      entry('Store', await sb.makeKey('live', READ_SCOPES)),
    ]);
    const here = await stdioHere(['--businesses', file, '--mirror', 'off'], OWN_CALLS);
    const c = await connectClient('v1', { linked: here });
    try {
      const client = c.client as unknown as ClientV1;
      const toolsChanged = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      await toolsChanged;
      const { tools } = await c.client.listTools();
      const names = tools.map((t: { name: string }) => t.name);
      // Only Store's key reads products: their tools stay; neither key writes.
      expect(names).toEqual(expect.arrayContaining(['list_products', 'get_product', 'list_customers', 'list_payments']));
      expect(names.filter((n: string) => n.startsWith('create_'))).toEqual([]);
      expect((await c.client.listPrompts()).prompts.map((p) => p.name)).not.toContain('draft_invoice');
    } finally {
      await c.close();
      await here.close();
    }
  });

  it('over --http (stateless), a key reading customers and invoices only: no products tool, no low-stock feed once known', async () => {
    const key = await sb.makeKey('live', ['customers.read', 'invoices.read']);
    const http = await spawnHttpServer(['--mirror', 'off'], keyEnv(sb, key));
    try {
      const c = await connectClient('v2', { http: http.url });
      expect(c.protocolVersion).toBe('2026-07-28');
      // The call signs the key in: from then on every request's server is built with its scopes.
      const checked = await c.client.callTool({ name: 'check_connection', arguments: {} });
      expect(checked.isError).toBeFalsy();
      const offer = await offerOf(c.client);
      await c.close();
      const reads = ['list_customers', 'get_customer', 'list_invoices', 'get_invoice'];
      expectFollowsTools(offer, ['check_connection', ...reads]);
      expect(offer.tools.filter((t) => t.includes('product'))).toEqual([]);
      expect(offer.resources).not.toContain('invoicing://products/low-stock');
      expect(offer.prompts).toEqual(['review_overdue_invoices', 'summarise_customer']);
    } finally {
      await http.close();
    }
  });
});

describe('hosted mode', () => {
  let sb: TestSandbox;
  let server: HostedServer;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 1_000_000 });
    server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('hosted_offers'), vaultKey: newVaultKey() });
  });
  afterAll(async () => {
    await server?.close();
    await sb?.close();
  });

  /** Signs `key` in on the page and allows reading only; the offer the grant's client sees. */
  async function readingGrant(key: { key_id: string; secret: string }, writable: boolean): Promise<Offer> {
    const provider = new MemoryOAuthProvider(REDIRECT, 'Reader');
    const flow = await startFlow(server.url, provider);
    const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, server.direct);
    const consent = await forms.continueWith({ keyId: key.key_id, secret: key.secret });
    expect(consent).toContain('value="read"');
    expect(consent.includes('value="write"')).toBe(writable);
    await flow.transport.finishAuth(await forms.allow(consent, 'read'));
    const { client, transport } = oauthClient(server.url, provider);
    await client.connect(transport);
    try {
      return await offerOf(client as unknown as McpClient);
    } finally {
      await client.close();
    }
  }

  it('a read-only grant of a key that may write: no prompt that drafts', async () => {
    const offer = await readingGrant(await sb.makeKey('live'), true);
    expectFollowsTools(offer, ['check_connection', ...READS, ...MORE_READS, ...ANSWERS]);
    expect(offer.prompts).not.toContain('draft_invoice');
  });

  it('a grant of a key that reads customers and invoices only is offered only what those tools reach', async () => {
    const offer = await readingGrant(await sb.makeKey('live', ['customers.read', 'invoices.read']), false);
    const reports = ['report_owed', 'report_sales', 'report_customer', 'find_records'];
    expectFollowsTools(offer, ['check_connection', 'list_customers', 'get_customer', 'list_invoices', 'get_invoice', ...reports]);
    expect(offer.prompts).toEqual(['review_overdue_invoices', 'summarise_customer']);
  });
});
