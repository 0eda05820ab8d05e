// Hosted mode end to end in a real browser (Chromium from the registry, one for the file): an MCP client
// with the v2 SDK's OAuth provider starts the flow, the browser fills our sign-in page (Key ID, Secret,
// Continue, Allow) and the client's tool calls answer that business's books, checked against the sandbox's
// raw API. Then: Deny, a wrong secret, two businesses signed in at once each seeing only its own books, each
// business's webhook URL and signing secret, the sandbox's signed webhooks reaching only their own business's
// books and subscribers, a refresh token that rotates, a token asked for another resource, a revoked grant,
// and a key suspended in the sandbox.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Client } from '@modelcontextprotocol/client';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/events/signature.js';
import { answerOf, receivable, same, tally } from '../answers/ground-truth.js';
import { eventually, type Json, listAll, signIn, signInRaw, wrongSecret } from '../contract/sandbox-http.js';
import { connectChromium } from '../support/chromium.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { deploymentSecrets, dumpTables, secretsIn } from './support/hosted-leaks.js';
import {
  deliveryTaken,
  draftInvoice,
  mirroredStatus,
  owedTruth,
  registerWebhook,
  sendInvoice,
  tenantSchemaOf,
  WEBHOOK_URL,
} from './support/hosted-webhooks.js';
import { legacyWatcher, modernWatcher, type Watcher } from './support/mcp-watchers.js';
import {
  type Callback,
  fillKey,
  MemoryOAuthProvider,
  oauthClient,
  type Signer,
  signInThrough,
  startCallback,
  startFlow,
} from './support/oauth-client.js';

let sb: TestSandbox;
let server: HostedServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let callback: Callback;
const vaultKey = newVaultKey();

interface Business {
  id: number;
  name: string;
  signer: Signer;
}

/** A new business of the sandbox with its live key. */
async function newBusiness(): Promise<Business> {
  const made = await sb.admin('POST', '/businesses', {});
  expect(made.status).toBe(201);
  sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
  return { id: made.body.id, name: made.body.name, signer: { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret } };
}

/** Every client of the file, so the end can look for their tokens where none may be. */
const providers: MemoryOAuthProvider[] = [];
const newProvider = (name = 'Test Assistant'): MemoryOAuthProvider => {
  const provider = new MemoryOAuthProvider(callback.url, name);
  providers.push(provider);
  return provider;
};
let database: string;
const rawSession = (b: Business) => signIn(sb.baseUrl, { key_id: b.signer.keyId, secret: b.signer.secret });

async function connect(business: Business): Promise<{ client: Client; provider: MemoryOAuthProvider }> {
  const provider = newProvider();
  return { client: await signInThrough(page, server.url, provider, callback, business.signer), provider };
}

const tokenEndpoint = (): string => `${server.origin}/oauth/token`;
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/**
 * The id of the element with focus once the page has taken up its `autofocus`, which Chromium does at a
 * rendering step after the load (so a look right after navigating may find nothing focused yet).
 */
async function focused(page: Page): Promise<string> {
  await page.waitForFunction(() => document.activeElement !== document.body, null, { timeout: 2_000 }).catch(() => undefined);
  return page.evaluate(() => document.activeElement?.id ?? '');
}

/** What axe-core finds wrong on the page now. */
async function audit(page: Page): Promise<string[]> {
  const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the browser's protocol, which the page's CSP does not govern.
  await page.evaluate(axe);
  // Only the violations are read: axe then leaves out the passes and the incomplete, work it would do for nothing.
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } }).axe.run(document, {
      resultTypes: ['violations'],
    }),
  )) as Json;
  return result.violations.map((v: Json) => `${v.id}: ${v.help}`);
}

interface Hooked {
  url: string;
  secret: string;
  provider: MemoryOAuthProvider;
}

/**
 * Signs the business in with webhooks, as a person would: the second step shows its webhook URL, which the
 * sandbox registers (giving the signing secret); a secret pasted wrongly is refused and not shown again
 * (the page then checked by axe-core when asked), then the right one is typed by keyboard and Enter allows.
 */
async function signInWithWebhook(business: Business, { axe = false } = {}): Promise<Hooked> {
  const provider = newProvider();
  const first = await startFlow(server.url, provider);
  await page.goto(String(provider.authorizationUrl));
  await page.bringToFront();
  await fillKey(page, business.signer);
  const url = String(await page.locator('#webhook_url').textContent());
  expect(url.startsWith(`${server.origin}/webhooks/`), url).toBe(true);
  expect(url).toMatch(WEBHOOK_URL);
  expect(url).not.toContain(business.signer.keyId.replace(/^svck_live_/, '').slice(0, 8));
  const secret = await registerWebhook(sb, business.id, url);
  const field = page.getByLabel('Webhook signing secret (optional)');
  const writes = page.getByLabel(/and create customers and draft invoices/);
  await writes.check();
  await field.fill(`${secret} (copied)`);
  await page.getByRole('button', { name: 'Allow' }).click();
  expect(await page.getByRole('alert').textContent()).toContain('Not a webhook signing secret');
  expect(await writes.isChecked()).toBe(true);
  expect(await field.inputValue()).toBe('');
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  expect(await page.content()).not.toContain(secret);
  if (axe) expect(await audit(page)).toEqual([]);
  expect(await focused(page)).toBe('webhook_secret');
  await page.keyboard.type(secret);
  const returned = callback.next();
  await page.keyboard.press('Enter');
  await first.transport.finishAuth((await returned).searchParams);
  return { url, secret, provider };
}

/** Two businesses signed in with their webhooks, for the tests of both at once (made by the first to ask). */
let both: Promise<{ a: Business; b: Business; hooked: Map<number, Hooked> }> | undefined;
function twoHooked() {
  both ??= (async () => {
    const [a, b] = [await newBusiness(), await newBusiness()];
    const hooked = new Map<number, Hooked>();
    for (const business of [a, b]) hooked.set(business.id, await signInWithWebhook(business, { axe: business === a }));
    return { a, b, hooked };
  })();
  return both;
}

/** A client with the token a sign-in left. */
async function connectWith(signedIn: Hooked): Promise<{ client: Client }> {
  const { client, transport } = oauthClient(server.url, signedIn.provider);
  await client.connect(transport);
  return { client };
}

/** Whether the watcher was told `uri` changed, at any time so far. */
const heardOf = (watcher: Watcher, uri: string): Promise<boolean> =>
  watcher.updated(uri, 0, 0).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  const [started, listening] = await Promise.all([startTestSandbox({ rateLimit: 1_000_000, signInLimit: 1000 }), startCallback()]);
  sb = started;
  callback = listening;
  const [hosted, launched] = await Promise.all([
    startHostedServer({
      sandbox: sb,
      database: (database = await postgresDatabase('hosted_browser')),
      vaultKey,
      args: ['--log-level', 'trace'],
    }),
    connectChromium(),
  ]);
  server = hosted;
  browser = launched;
  // One context and one page, navigated from flow to flow (a page of this Chromium build, closed, now and
  // then never returned).
  context = await browser.newContext();
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
  await sb?.close();
});

describe('signing in through the browser', () => {
  it('connects a client to the business whose key was given: its tool calls answer that business books', async () => {
    const business = await newBusiness();
    const provider = newProvider();
    const first = await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    expect(await page.title()).toMatch(/Sign in/);
    await fillKey(page, business.signer);
    // The second step shows the business, its mode and what the assistant may do, as the service told it.
    expect(await page.locator('#business').textContent()).toBe(business.name);
    expect(await page.locator('#mode').textContent()).toMatch(/^Live/);
    expect(await page.getByRole('group', { name: 'What the assistant may do' }).getByRole('radio').count()).toBe(2);
    await page.getByLabel(/and create customers and draft invoices/).check();
    const returned = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const back = await returned;
    expect(back.searchParams.get('iss')).toBe(server.origin);
    await first.transport.finishAuth(back.searchParams);
    const { client, transport } = oauthClient(server.url, provider);
    await client.connect(transport);
    const raw = await listAll(await rawSession(business), '/api/v1/invoices');
    const invoice = raw.at(-1);
    const got = await client.callTool({ name: 'get_invoice', arguments: { id: invoice.id } });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ id: invoice.id, number: invoice.number, total: invoice.total });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('create_draft_invoice');
    await client.close();
  });

  it('Deny sends the client back with access_denied', async () => {
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    const returned = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await returned;
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect(back.searchParams.get('iss')).toBe(server.origin);
  });

  it('says a secret is wrong, in the service words, and keeps the person on the page', async () => {
    const business = await newBusiness();
    const wrong = { keyId: business.signer.keyId, secret: wrongSecret(business.signer.secret) };
    const truth = await signInRaw(sb.baseUrl, { key_id: wrong.keyId, secret: wrong.secret });
    expect(truth.status).toBe(401);
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    await fillKey(page, wrong);
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('Wrong key ID or secret');
    expect(await alert.textContent()).toContain(truth.body.message);
    expect(await page.getByLabel('Key ID').inputValue()).toBe(wrong.keyId);
    expect(await page.getByLabel('Secret').inputValue()).toBe('');
    expect(await page.getByLabel('Secret').getAttribute('aria-invalid')).toBe('true');
    expect(await page.content()).not.toContain(wrong.secret);
  });
});

describe('two businesses at once', () => {
  const kinds = [
    ['invoices', 'get_invoice'],
    ['customers', 'get_customer'],
    ['payments', 'get_payment'],
    ['products', 'get_product'],
    ['quotes', 'get_quote'],
  ] as const;

  it('each token reaches only its own business books, by every tool, resource and answer', async () => {
    const { a, b, hooked } = await twoHooked();
    const ca = await connectWith(hooked.get(a.id) as Hooked);
    const cb = await connectWith(hooked.get(b.id) as Hooked);
    const truth = new Map<number, Map<string, Json[]>>();
    for (const business of [a, b]) {
      const session = await rawSession(business);
      truth.set(
        business.id,
        new Map(await Promise.all(kinds.map(async ([kind]) => [kind, await listAll(session, `/api/v1/${kind}`)] as const))),
      );
    }
    const pairs = [
      [ca.client, a, b],
      [cb.client, b, a],
    ] as const;
    for (const [client, own, other] of pairs) {
      const listed = await client.callTool({ name: 'list_invoices', arguments: { per_page: 100 } });
      const ownInvoices = truth.get(own.id)?.get('invoices') ?? [];
      expect((listed.structuredContent as Json).data.map((i: Json) => i.id)).toEqual(ownInvoices.slice(0, 100).map((i) => i.id));
      const business = await client.readResource({ uri: 'invoicing://business' });
      expect(JSON.parse(business.contents[0]?.text ?? '{}').business).toEqual({ id: own.id, name: own.name });
      for (const [kind, tool] of kinds) {
        const mine = truth.get(own.id)?.get(kind)?.[0];
        const theirs = truth.get(other.id)?.get(kind)?.[0];
        expect((await client.callTool({ name: tool, arguments: { id: mine.id } })).isError).toBeFalsy();
        const refused = await client.callTool({ name: tool, arguments: { id: theirs.id } });
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused.content)).toMatch(/not found|No /i);
        await expect(client.readResource({ uri: `invoicing://${kind}/${theirs.id}` })).rejects.toThrow();
        const read = await client.readResource({ uri: `invoicing://${kind}/${mine.id}` });
        expect(JSON.parse(read.contents[0]?.text ?? '{}').id).toBe(mine.id);
      }
      // The answer tools read the tenant's own books mirror: what it is owed is its own books' sum, and a
      // search for the other business's customer finds nothing of the other's.
      const owed = await answerOf(client, 'report_owed');
      const owedTruth = tally(
        ownInvoices.filter(receivable),
        (i) => i.currency,
        (i) => i.balance,
      );
      expect(owed.currencies.map((c: Json) => c.currency).sort()).toEqual([...owedTruth.keys()].sort());
      for (const c of owed.currencies) {
        expect(c.count, c.currency).toBe(owedTruth.get(c.currency)?.count);
        expect(same(c.balance, owedTruth.get(c.currency)?.sum ?? 'NaN'), `${c.currency} ${c.balance}`).toBe(true);
      }
      const ownCustomers = new Map((truth.get(own.id)?.get('customers') ?? []).map((c) => [c.id, c.name]));
      const theirCustomer = (truth.get(other.id)?.get('customers') ?? []).find((c) => ![...ownCustomers.values()].includes(c.name));
      const mineFirst = truth.get(own.id)?.get('customers')?.[0];
      const found = await answerOf(client, 'find_records', { search: [theirCustomer.name, mineFirst.name] });
      for (const result of found.results) for (const c of result.customers) expect(ownCustomers.get(c.id), c.name).toBe(c.name);
      expect(found.results[1].customers.map((c: Json) => c.id)).toContain(mineFirst.id);
      const ownIds = new Set(kinds.flatMap(([kind]) => (truth.get(own.id)?.get(kind) ?? []).map((r) => `${kind} ${r.id}`)));
      for (const kind of ['invoices', 'quotes', 'products'] as const)
        for (const r of found.results[0][kind]) expect(ownIds.has(`${kind} ${r.id}`), `${kind} ${r.id}`).toBe(true);
    }
    // Each key's mirror is a schema of its own: `invoicing_mcp_k_` and a digest of the service and key.
    const db = new pg.Client({ connectionString: database });
    await db.connect();
    try {
      for (const business of [a, b]) {
        const { rows } = await db.query(`SELECT id FROM ${tenantSchemaOf(sb.baseUrl, business.signer.keyId)}.customers ORDER BY id`);
        const ids = (truth.get(business.id)?.get('customers') ?? []).map((c) => c.id).sort((x, y) => x - y);
        expect(rows.map((r) => Number(r.id))).toEqual(ids);
      }
    } finally {
      await db.end();
    }
    await Promise.all([ca.client.close(), cb.client.close()]);
  });
});

describe('tokens', () => {
  it('rotates the refresh token on use; a used one is refused and ends the grant', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    const tokens = provider.tokens();
    const clientId = String(provider.clientInformation()?.client_id);
    expect(tokens?.refresh_token).toBeTruthy();
    const refresh = (token: string, resource = server.url) =>
      fetch(tokenEndpoint(), form({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId, resource }));
    const renewed = await refresh(String(tokens?.refresh_token));
    const body = (await renewed.json()) as Json;
    expect(renewed.status, JSON.stringify(body)).toBe(200);
    expect(body.refresh_token).toBeTruthy();
    expect(body.refresh_token).not.toBe(tokens?.refresh_token);
    const again = await refresh(String(tokens?.refresh_token));
    expect(again.status).toBe(400);
    expect(((await again.json()) as Json).error).toBe('invalid_grant');
    // A refresh token used again is taken as stolen: its grant is revoked, the new token with it.
    expect((await refresh(String(body.refresh_token))).status).toBe(400);
    await client.close();
  });

  it('gives no token for another resource', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    const clientId = String(provider.clientInformation()?.client_id);
    const elsewhere = await fetch(
      tokenEndpoint(),
      form({
        grant_type: 'refresh_token',
        refresh_token: String(provider.tokens()?.refresh_token),
        client_id: clientId,
        resource: 'http://127.0.0.1:1/mcp',
      }),
    );
    expect(elsewhere.status).toBe(400);
    expect(((await elsewhere.json()) as Json).error).toBe('invalid_target');
    await client.close();
  });

  it('a revoked grant reaches nothing more', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    expect((await client.callTool({ name: 'list_customers', arguments: {} })).isError).toBeFalsy();
    const tokens = provider.tokens();
    const clientId = String(provider.clientInformation()?.client_id);
    const revoked = await fetch(
      `${server.origin}/oauth/revoke`,
      form({ token: String(tokens?.refresh_token), token_type_hint: 'refresh_token', client_id: clientId }),
    );
    expect(revoked.status).toBe(200);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens?.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(client.callTool({ name: 'list_customers', arguments: {} })).rejects.toThrow();
  });

  it('a key suspended in the sandbox: the call says so in the service words, and the key grants end', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    expect((await client.callTool({ name: 'list_invoices', arguments: {} })).isError).toBeFalsy();
    await sb.suspend(business.signer.keyId);
    const truth = await signInRaw(sb.baseUrl, { key_id: business.signer.keyId, secret: business.signer.secret });
    expect(truth.status).toBe(403);
    const refused = await client.callTool({ name: 'list_invoices', arguments: { page: 2 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain(truth.body.message);
    // The key stopped working at sign-in: its grants end, and the client is told to sign in again.
    const challenge = await eventually(async () => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.tokens()?.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      return res.status === 401 ? res.headers.get('www-authenticate') : undefined;
    });
    expect(challenge).toMatch(/error="invalid_token".*sign in again/);
    await expect(client.callTool({ name: 'list_invoices', arguments: {} })).rejects.toThrow();
    const log = new pg.Client({ connectionString: database });
    await log.connect();
    try {
      // The ending is written last, after the grants are revoked and the business forgotten (the 401 comes first).
      const rows = await eventually(async () => {
        const ended = await log.query(
          "SELECT business_id, detail FROM invoicing_mcp_hosted.grant_log WHERE event = 'ended' AND key_id = $1",
          [business.signer.keyId],
        );
        return ended.rows.length > 0 ? ended.rows : undefined;
      });
      expect(rows).toEqual([{ business_id: String(business.id), detail: truth.body.message }]);
    } finally {
      await log.end();
    }
  });
});

describe('the sign-in page itself', () => {
  it('carries a strict CSP and refuses a form without its anti-forgery token or from another origin', async () => {
    const provider = newProvider();
    await startFlow(server.url, provider);
    const shown = await page.goto(String(provider.authorizationUrl));
    const csp = (await shown?.allHeaders())?.['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/style-src 'sha256-[^']+'/);
    expect(csp).not.toMatch(/unsafe-inline|script-src/);
    expect(await page.locator('script, link, img, iframe').count()).toBe(0);
    const action = String(await page.locator('form').getAttribute('action'));
    const cookies = (await context.cookies(`${server.origin}${action}`)).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (fields: Record<string, string>, origin: string) =>
      fetch(`${server.origin}${action}`, {
        ...form(fields),
        headers: { ...form(fields).headers, cookie: cookies, origin },
        redirect: 'manual',
      });
    const forged = await post({ action: 'deny', csrf: 'made-up' }, server.origin);
    expect(forged.status).toBe(403);
    const csrf = String(await page.locator('input[name=csrf]').getAttribute('value'));
    const elsewhere = await post({ action: 'deny', csrf }, 'https://attacker.example');
    expect(elsewhere.status).toBe(403);
    // The page is still there to be used: nothing was decided.
    await page.reload();
    expect(await page.getByLabel('Key ID').count()).toBe(1);
  });

  it('has no accessibility violations (axe-core) on either step, with an error shown too', async () => {
    const business = await newBusiness();
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    expect(await audit(page)).toEqual([]);
    await fillKey(page, { keyId: business.signer.keyId, secret: wrongSecret(business.signer.secret) });
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await audit(page)).toEqual([]);
    await fillKey(page, business.signer);
    expect(await page.locator('#business').textContent()).toBe(business.name);
    expect(await audit(page)).toEqual([]);
  });

  it('is used by keyboard: the Key ID field has focus, Tab moves to Secret, Enter continues', async () => {
    const business = await newBusiness();
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    await page.bringToFront();
    expect(await focused(page)).toBe('key_id');
    await page.keyboard.type(business.signer.keyId);
    await page.keyboard.press('Tab');
    await page.keyboard.type(business.signer.secret);
    await page.keyboard.press('Enter');
    expect(await page.locator('#business').textContent()).toBe(business.name);
    // On the second step Allow has focus: the first thing to do.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow');
  });
});

describe('webhooks and subscriptions', () => {
  it("a signed webhook to a business's URL feeds its own books and its own subscribers, of either era, never the other's", async () => {
    // Their mirrors were read in full by the answers of the test of both at once.
    const { a, b, hooked } = await twoHooked();
    expect(hooked.get(a.id)?.url).not.toBe(hooked.get(b.id)?.url);
    const drafts = new Map([
      [a.id, await draftInvoice(sb, a.signer)],
      [b.id, await draftInvoice(sb, b.signer)],
    ]);
    const invoiceUri = (business: Business) => `invoicing://invoices/${drafts.get(business.id)}`;
    const watchers = new Map<number, Watcher[]>();
    try {
      for (const business of [a, b]) {
        const where = {
          http: server.url,
          headers: { authorization: `Bearer ${hooked.get(business.id)?.provider.tokens()?.access_token}` },
        };
        const pair = [await modernWatcher(where), await legacyWatcher(where)];
        watchers.set(business.id, pair);
        // Each watches both invoices: a change of the other business's would be heard if it reached it.
        for (const w of pair) {
          expect(w.subscribable, w.era).toBe(true);
          await w.subscribe(['invoicing://events', invoiceUri(a), invoiceUri(b)]);
        }
      }
      for (const business of [a, b]) {
        const since = Date.now();
        const id = drafts.get(business.id) as number;
        await sendInvoice(sb, business.id, id);
        for (const w of watchers.get(business.id) ?? []) await w.updated(invoiceUri(business), since, 10_000);
        await deliveryTaken(sb, hooked.get(business.id)?.url as string);
        // The event went into the business's own mirror: the invoice is sent there, not only at the service.
        expect(
          await eventually(
            async () => ((await mirroredStatus(database, sb, business.signer.keyId, id)) === 'sent' ? true : undefined),
            10_000,
          ),
        ).toBe(true);
      }
      // B's change came after A's: A's, had it reached B's subscribers, would have been heard there by now.
      for (const [own, other] of [
        [a, b],
        [b, a],
      ] as const) {
        for (const w of watchers.get(own.id) ?? []) expect(await heardOf(w, invoiceUri(other)), `${w.era} of ${own.id}`).toBe(false);
      }
      // The next answer sees the change: what each is owed is its own raw books' sum, the sent invoice in it.
      for (const business of [a, b]) {
        const { client } = await connectWith(hooked.get(business.id) as Hooked);
        const owed = await answerOf(client, 'report_owed');
        const truth = await owedTruth(sb, business.signer);
        expect(owed.currencies.map((c: Json) => c.currency).sort()).toEqual([...truth.keys()].sort());
        for (const c of owed.currencies) {
          expect(c.count, c.currency).toBe(truth.get(c.currency)?.count);
          expect(same(c.balance, truth.get(c.currency)?.sum ?? 'NaN'), `${c.currency} ${c.balance}`).toBe(true);
        }
        await client.close();
      }
    } finally {
      for (const w of [...watchers.values()].flat()) await w.close().catch(() => undefined);
    }
  });

  it('refuses a wrong signature and a URL of no business alike; keeps the URL and secret across sign-ins', async () => {
    const { a: business, hooked } = await twoHooked();
    const { url, secret } = hooked.get(business.id) as Hooked;
    // An event of a kind the server does not act on: taken when signed, and nothing of the books changes.
    const body = JSON.stringify({ id: 'evt_hosted_refusals', event: 'invoice.viewed', created_at: new Date().toISOString(), data: {} });
    const deliver = async (to: string, key: string) => {
      const res = await fetch(to, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(key, Math.floor(Date.now() / 1000), body) },
        body,
      });
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    };
    const forged = await deliver(url, 'whsec_not_the_secret_of_anyone');
    expect(forged.status).toBe(400);
    expect(await deliver(url.replace(/[^/]{22}$/, 'A'.repeat(22)), secret)).toEqual(forged);
    expect(await deliver(`${server.origin}/webhooks/svck_live_nobody`, secret)).toEqual(forged);
    expect((await deliver(url, secret)).status).toBe(204);
    // Signed in again: the same URL, the secret kept (and not shown), nothing asked of the person.
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    await fillKey(page, business.signer);
    expect(await page.locator('#webhook_url').textContent()).toBe(url);
    expect(await page.locator('section').textContent()).toContain('Webhooks are on');
    expect(await page.content()).not.toContain(secret);
    const returned = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    expect((await returned).searchParams.get('error')).toBe('access_denied');
  });
});

describe('what is kept', () => {
  it('keeps an audit log of grants: when, which business and key, which client, what happened', async () => {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT event, grant_id, client_id, key_id, business_id, detail FROM invoicing_mcp_hosted.grant_log',
      );
      const granted = rows.filter((r) => r.event === 'granted');
      expect(granted.length).toBeGreaterThanOrEqual(5);
      for (const row of granted) {
        expect(row.key_id).toMatch(/^svck_live_/);
        expect(Number(row.business_id)).toBeGreaterThan(2);
        expect(row.client_id).toBeTruthy();
        expect(['read', 'write']).toContain(row.detail);
      }
      expect(rows.some((r) => r.event === 'denied')).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('holds no secret and no token outside the vault, in the database or in the log at trace level', async () => {
    const tokens = providers.flatMap((p) => [p.tokens()?.access_token, p.tokens()?.refresh_token]).filter((t): t is string => !!t);
    expect(tokens.length).toBeGreaterThan(10);
    const secrets = await deploymentSecrets(sb, vaultKey);
    const dump = await dumpTables(database);
    expect(dump).toContain('svck_live_');
    expect(secretsIn(dump, secrets, 'log', tokens)).toEqual([]);
    const log = server.stderr();
    expect(log).toContain('"level":10');
    expect(secretsIn(log, secrets, 'log', tokens)).toEqual([]);
  });
});
