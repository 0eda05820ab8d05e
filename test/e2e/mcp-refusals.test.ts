// Each refusal of the service reaches the model as a tool error (isError) whose text says what happened
// and what to do: a missing scope, a 422 field by field, a 429 with when to retry, a record not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessesFile } from './support/businesses-file.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { type HttpServer, keyEnv, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

// One sandbox for the first two blocks: each server has a key of its own on it.
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox?.close());

describe('refusals on a live key (v2 client over stdio)', () => {
  let readOnlyKey: Connected;
  let fullKey: Connected;
  // A key's own server withdraws the tools it cannot use once it knows its scopes; a server of two businesses
  // keeps them while the other's key can, and the reader's calls get the service's refusal.
  let readerAndWriter: Connected;
  let writer: KeyPair;
  beforeAll(async () => {
    const reader = await sandbox.makeKey('live', ['customers.read', 'invoices.read']);
    writer = await sandbox.makeKey('live');
    const entry = (name: string, key: KeyPair) => ({ name, base_url: sandbox.baseUrl, key_id: key.key_id, secret: key.secret });
    const both = businessesFile([entry('Reader', reader), entry('Writer', await sandbox.makeKey('live'))]);
    [readOnlyKey, fullKey, readerAndWriter] = await Promise.all([
      connectClient('v2', { linked: await stdioHere([], keyEnv(sandbox, reader)) }),
      connectClient('v2', { linked: await stdioHere([], keyEnv(sandbox, writer)) }),
      connectClient('v2', { linked: await stdioHere(['--businesses', both, '--mirror', 'off']) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([readOnlyKey?.close(), fullKey?.close(), readerAndWriter?.close()]);
  });

  it('check_connection reports the live mode and exactly the key scopes', async () => {
    const result = await readOnlyKey.client.callTool({ name: 'check_connection', arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, mode: 'live', business: { id: 1 } });
    expect([...result.structuredContent.scopes].sort()).toEqual(['customers.read', 'invoices.read']);
    expect(textOf(result)).toContain('Scopes: ');
  });

  it('a missing write scope names the scope, who grants it, and that signing in again will not help', async () => {
    const result = await readerAndWriter.client.callTool({
      name: 'create_draft_invoice',
      arguments: { business: 'Reader', customer_id: 1, items: [{ description: 'Labour', unit_price: '10.00', quantity: 1 }] },
    });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('invoices.write');
    expect(text).toMatch(/owner or admin/);
    expect(text).toContain('signing in again will not help');
  });

  it('a missing read scope names that scope', async () => {
    const result = await readerAndWriter.client.callTool({ name: 'list_products', arguments: { business: 'Reader' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('lacks the products.read scope');
  });

  it('a 422 lists each field with its message', async () => {
    const result = await fullKey.client.callTool({
      name: 'create_draft_invoice',
      arguments: { customer_id: 1, items: [{ product_id: 999999, quantity: 1 }, { quantity: 1 }] },
    });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('Fix these fields and call again');
    expect(text).toMatch(/^- items\.0\.product_id: .*does not name a product/m);
    expect(text).toMatch(/^- items\.1\.description: .*required/m);
    expect(text).toMatch(/^- items\.1\.unit_price: .*required/m);
  });

  it('an argument that does not fit the tool schema is a tool error naming the field, and never reaches the service', async () => {
    // The mirror reads lists in the background; what must not happen is a create reaching the service.
    const creates = async (): Promise<number> =>
      (await sandbox.requests(writer.key_id)).filter((r) => r.method === 'POST' && r.path.startsWith('/api/')).length;
    const before = await creates();
    const price = await fullKey.client.callTool({
      name: 'create_draft_invoice',
      arguments: { customer_id: 1, items: [{ description: 'Labour', unit_price: 12.34567, quantity: 1 }] },
    });
    expect(price.isError).toBe(true);
    expect(textOf(price)).toMatch(/items\.0\.unit_price: .*more than 4 decimals/);
    const email = await fullKey.client.callTool({ name: 'create_customer', arguments: { name: 'X', email: 'not-an-email' } });
    expect(textOf(email)).toMatch(/email: Invalid email/);
    expect(await creates()).toBe(before);
  });

  it('a record not found names it', async () => {
    for (const [name, noun] of [
      ['get_customer', 'customer'],
      ['get_invoice', 'invoice'],
      ['get_product', 'product'],
    ] as const) {
      const result = await fullKey.client.callTool({ name, arguments: { id: 987654 } });
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toContain(`no ${noun} with id 987654`);
    }
  });

  it('the refused creates reached the service and created nothing', async () => {
    const posts = (await sandbox.requests(writer.key_id)).filter((r) => r.method === 'POST' && r.path === '/api/v1/invoices');
    expect(posts.map((r) => r.status)).toContain(422);
    expect(posts.filter((r) => r.status === 201)).toEqual([]);
  });
});

describe('a suspended key and wrong keys (v1 client over stdio)', () => {
  /** The text of check_connection's refusal on a fresh server with these keys. */
  async function refusal(key: { key_id: string; secret: string }): Promise<string> {
    const c = await connectClient('v1', { linked: await stdioHere([], keyEnv(sandbox, key)) });
    try {
      const result = await c.client.callTool({ name: 'check_connection', arguments: {} });
      expect(result.isError).toBe(true);
      return textOf(result);
    } finally {
      await c.close();
    }
  }

  it('a suspended key says signing in again does not help and who can resume it', async () => {
    const key = await sandbox.makeKey('live');
    await sandbox.suspend(key.key_id);
    const text = await refusal(key);
    expect(text).toContain('Signing in again does not help');
    expect(text).toMatch(/owner or admin of the business must resume/);
  });

  it('a wrong secret says which settings to fix, without echoing the secret', async () => {
    const key = await sandbox.makeKey('live');
    const text = await refusal({ key_id: key.key_id, secret: `${key.secret.slice(0, -4)}zzzz` });
    expect(text).toMatch(/^Sign-in was refused \(401/);
    expect(text).toContain('put a current key ID and secret from the developer console into SVC_KEY_ID and SVC_SECRET');
    expect(text).not.toContain(key.secret.slice(0, -4));
  });
});

describe('the rate limit (v1 client over HTTP)', () => {
  let limited: TestSandbox;
  let server: HttpServer;
  let c: Connected;
  beforeAll(async () => {
    limited = await startTestSandbox({ rateLimit: 3, rateWindowSeconds: 600 });
    server = await spawnHttpServer([], keyEnv(limited, await limited.makeKey('live')));
    c = await connectClient('v1', { http: server.url });
  });
  afterAll(async () => {
    await c?.close();
    await server?.close();
    await limited?.close();
  });

  it('a 429 says when to retry', async () => {
    const results = [];
    for (let id = 1; id <= 6; id++) results.push(await c.client.callTool({ name: 'get_invoice', arguments: { id } }));
    const refused = results.filter((r) => r.isError);
    expect(results[0]?.isError).toBeFalsy();
    expect(refused.length).toBeGreaterThan(0);
    expect(textOf(refused[0]!)).toMatch(/rate limit.*Retry after \d+ seconds/s);
  });
});
