// Contract: refusals come through as typed errors that keep the service's message: MissingScope names
// the scope, suspended key sets and a plan without the API are Forbidden and never retried, 422 field
// errors arrive keyed by field, records of another business are NotFound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, Forbidden, Invalid, MissingScope, NotFound } from '../../src/api/index.js';
import { makeClient } from '../support/client.js';
import { captureLogs, findLeaks } from '../support/logs.js';
import { type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const logs = captureLogs();
let sb: TestSandbox;
const clients: ApiClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sb?.close();
  expect(findLeaks(logs.text(), sb.secrets)).toEqual([]);
});

function client(key: KeyPair): ApiClient {
  const c = makeClient(sb, key, logs);
  clients.push(c);
  return c;
}

async function callsTo(keyId: string, path: string): Promise<number[]> {
  return (await sb.requests(keyId)).filter((r) => r.path.startsWith(path)).map((r) => r.status);
}

describe('missing scope', () => {
  it('names the scope a read needs', async () => {
    const key = await sb.makeKey('test', ['invoices.read']);
    const err = await client(key).customers.list().catch(logs.caught);
    expect(err).toBeInstanceOf(MissingScope);
    expect((err as MissingScope).requiredScope).toBe('customers.read');
    expect((err as MissingScope).status).toBe(403);
    expect((err as Error).message).toMatch(/customers\.read/);
    expect((err as Error).message).toMatch(/owner or admin/);
    expect((err as MissingScope).serviceMessage).toMatch(/customers\.read/);
  });

  it('names the scope a create needs (a key with no scope ticked reads but does not write)', async () => {
    const key = await sb.makeKey('live', []);
    const c = client(key);
    await expect(c.invoices.get(1)).resolves.toMatchObject({ id: 1 });
    const err = await c.customers.create({ name: 'Nobody' }).catch(logs.caught);
    expect(err).toBeInstanceOf(MissingScope);
    expect((err as MissingScope).requiredScope).toBe('customers.write');
    expect(await callsTo(key.key_id, '/api/v1/customers')).toEqual([403]);
  });
});

describe('forbidden', () => {
  it('a suspended key set is Forbidden, and nothing is retried', async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    await c.ping();
    await sb.suspend(key.key_id);
    const err = await c.invoices.get(3).catch(logs.caught);
    expect(err).toBeInstanceOf(Forbidden);
    expect(err).not.toBeInstanceOf(MissingScope);
    expect((err as Error).message).toMatch(/suspended/);
    expect((err as Error).message).toMatch(/Signing in again does not help/);
    // One call (401: the suspension ended the session), one sign-in refused with 403, no more.
    await expect(c.invoices.get(4)).rejects.toBeInstanceOf(Forbidden);
    const signIns = (await sb.signIns(key.key_id)).map((s) => s.status);
    expect(signIns).toEqual([201, 403]);
    expect(await callsTo(key.key_id, '/api/v1/invoices')).toEqual([401]);
    await sb.resume(key.key_id);
  });

  it('a plan without the API is Forbidden, and the call is made once', async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    await c.ping();
    await sb.setPlan(false);
    try {
      const err = await c.products.list({ per_page: 5 }).catch(logs.caught);
      expect(err).toBeInstanceOf(Forbidden);
      expect((err as Error).message).toMatch(/plan/);
      expect(await callsTo(key.key_id, '/api/v1/products')).toEqual([403]);
      expect(await sb.signIns(key.key_id)).toHaveLength(1);
    } finally {
      await sb.setPlan(true);
    }
  });
});

describe('invalid requests', () => {
  it('422 field errors come through keyed by field path, with the service message', async () => {
    const c = client(sb.keys.test);
    const err = await c.invoices
      .create({ customer_id: 1, items: [{ description: 'Widget', quantity: 0, unit_price: '5.00' }] })
      .catch(logs.caught);
    expect(err).toBeInstanceOf(Invalid);
    const invalid = err as Invalid;
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.fieldErrors)).toContain('items.0.quantity');
    expect(invalid.fieldErrors['items.0.quantity']?.[0]).toMatch(/greater than 0/);
    expect(invalid.message).toMatch(/items\.0\.quantity/);
    expect(invalid.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(await callsTo(sb.keys.test.key_id, '/api/v1/invoices')).toEqual([422]);
  });

  it('a bad list parameter is Invalid, keyed by the parameter', async () => {
    const err = await client(sb.keys.test).invoices.list({ status: 'bogus' }).catch(logs.caught);
    expect(err).toBeInstanceOf(Invalid);
    expect(Object.keys((err as Invalid).fieldErrors)).toEqual(['status']);
  });

  it('an impossible ID is refused without a call', async () => {
    const key = await sb.makeKey('test');
    await expect(client(key).customers.get(0)).rejects.toBeInstanceOf(Invalid);
    expect(await sb.signIns(key.key_id)).toHaveLength(0);
  });
});

describe('not found', () => {
  it("another business's record is NotFound", async () => {
    const other = await sb.makeKey('live', [], 2);
    const mine = await client(sb.keys.live).customers.list({ per_page: 1 });
    const id = mine.data[0]?.id as number;
    const err = await client(other).customers.get(id).catch(logs.caught);
    expect(err).toBeInstanceOf(NotFound);
    expect((err as NotFound).status).toBe(404);
    expect((err as Error).message).toMatch(/Check the ID/);
  });
});
