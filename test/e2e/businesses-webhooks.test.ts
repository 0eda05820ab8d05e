// Webhooks of a server of two businesses (over --http, and over stdio with --webhook-port): each business's
// deliveries come to /webhooks/<name>, are checked with its own signing secret and reach only its own
// subscriptions; a delivery signed with another business's secret, or to a name no business has, is refused.
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessesFile } from './support/businesses-file.js';
import { connectClient } from './support/clients.js';
import { type HttpServerHere, spawnHttpServer } from './support/server.js';
import { postSignedEvent } from './support/signed-delivery.js';
import { stdioHere } from './support/stdio-here.js';

const secrets = { Main: `whsec_${randomBytes(24).toString('base64url')}`, Small: `whsec_${randomBytes(24).toString('base64url')}` };

let sb: TestSandbox;
let server: HttpServerHere;
let client: Client;
const heard: string[] = [];
const hooks = () => server.url.replace(/\/mcp$/, '/webhooks');

beforeAll(async () => {
  sb = await startTestSandbox();
  const small = await sb.makeKey('live', ALL_SCOPES, 2);
  const file = businessesFile([
    { name: 'Main', base_url: sb.baseUrl, key_id: sb.keys.live.key_id, secret: sb.keys.live.secret, webhook_secret: secrets.Main },
    { name: 'Small', base_url: sb.baseUrl, key_id: small.key_id, secret: small.secret, webhook_secret_env: 'SMALL_HOOKS' },
  ]);
  server = await spawnHttpServer(['--businesses', file], { SMALL_HOOKS: secrets.Small, INVOICING_MCP_MIRROR: 'memory' });
  client = new Client({ name: 'hooks', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await sb?.close();
});

describe('webhooks of two businesses', () => {
  it('is ready when both mirrors are, telling each one by its place in the file, not its name', async () => {
    const res = await fetch(server.url.replace(/\/mcp$/, '/readyz'));
    const body = (await res.json()) as { businesses: { ready: boolean }[] };
    expect(res.status).toBe(200);
    expect(body.businesses.map((b) => b.ready)).toEqual([true, true]);
    expect(JSON.stringify(body)).not.toMatch(/Main|Small/);
  });

  it('says where each business registers its endpoint', () => {
    expect(server.stderr()).toContain(`Main: webhooks: register ${hooks()}/Main`);
    expect(server.stderr()).toContain(`Small: webhooks: register ${hooks()}/Small`);
  });

  it("hears a business's delivery on its own subscription only, and refuses another's secret or an unknown name", async () => {
    const id = 7;
    const listening = await client.listen({ resourceSubscriptions: ['invoicing://Main/invoices/7', 'invoicing://Small/invoices/7'] });
    try {
      expect(await postSignedEvent(`${hooks()}/Small`, secrets.Main, 'invoice.sent', { invoice: { id } })).toBe(400);
      expect(await postSignedEvent(`${hooks()}/Nobody`, secrets.Main, 'invoice.sent', { invoice: { id } })).toBe(400);
      expect(await postSignedEvent(`${hooks()}/Main`, secrets.Main, 'invoice.sent', { invoice: { id } })).toBe(204);
      const deadline = Date.now() + 10_000;
      while (!heard.includes('invoicing://Main/invoices/7') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toContain('invoicing://Main/invoices/7');
      expect(heard).not.toContain('invoicing://Small/invoices/7');
    } finally {
      await listening.close();
    }
  });
});

describe('webhooks of two businesses over stdio, on the --webhook-port listener', () => {
  it("hears a business's delivery on its own subscription only", async () => {
    const small = await sb.makeKey('live', ALL_SCOPES, 2);
    const file = businessesFile([
      { name: 'Main', base_url: sb.baseUrl, key_id: sb.keys.live.key_id, secret: sb.keys.live.secret, webhook_secret: secrets.Main },
      { name: 'Small', base_url: sb.baseUrl, key_id: small.key_id, secret: small.secret, webhook_secret: secrets.Small },
    ]);
    const here = await stdioHere(['--businesses', file, '--webhook-port', '0'], { INVOICING_MCP_MIRROR: 'memory' });
    const mcp = await connectClient('v2', { linked: here });
    const updates: string[] = [];
    mcp.client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    try {
      const url = /Small: webhooks: register (\S+) as/.exec(here.stderr())?.[1] as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/Small$/);
      const listening = await mcp.client.listen({ resourceSubscriptions: ['invoicing://Main/invoices/9', 'invoicing://Small/invoices/9'] });
      expect(await postSignedEvent(url, secrets.Main, 'invoice.sent', { invoice: { id: 9 } })).toBe(400);
      expect(await postSignedEvent(url, secrets.Small, 'invoice.sent', { invoice: { id: 9 } })).toBe(204);
      const deadline = Date.now() + 10_000;
      while (!updates.includes('invoicing://Small/invoices/9') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(updates).toContain('invoicing://Small/invoices/9');
      expect(updates).not.toContain('invoicing://Main/invoices/9');
      await listening.close();
    } finally {
      await mcp.close();
    }
  });
});
