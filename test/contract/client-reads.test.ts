// Contract: pages, the read cache and creates against the running sandbox. The iterator reads every
// page at per_page=100; updated_since goes out exactly ('+' as %2B); the cache is keyed, bounded in time,
// bypassable, invalidated by our creates and by invalidate(kind, id); creates reuse a caller's key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, Invalid, type InvoiceSummary } from '../../src/api/index.js';
import { makeClient } from '../support/client.js';
import { captureLogs, findLeaks } from '../support/logs.js';
import { type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const logs = captureLogs();
let sb: TestSandbox;
const clients: ApiClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sb?.close();
  expect(findLeaks(logs.text(), sb.secrets)).toEqual([]);
});

async function fresh(
  mode: 'test' | 'live' = 'test',
  options: Parameters<typeof makeClient>[3] = {},
): Promise<{ c: ApiClient; key: KeyPair }> {
  const key = await sb.makeKey(mode);
  const c = makeClient(sb, key, logs, options);
  clients.push(c);
  return { c, key };
}

async function paths(keyId: string): Promise<string[]> {
  return (await sb.requests(keyId)).filter((r) => r.path !== '/api/v1/auth/token').map((r) => r.path);
}

describe('pages', () => {
  it('reads every invoice through the iterator, at per_page=100, in ascending ID order', async () => {
    const { c, key } = await fresh();
    const first = await c.invoices.list({ per_page: 1 }, { cache: 'skip' });
    const total = first.meta?.total as number;
    expect(total).toBeGreaterThan(300);
    const seen: InvoiceSummary[] = [];
    for await (const inv of c.invoices.all()) seen.push(inv);
    expect(seen).toHaveLength(total);
    const ids = seen.map((i) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(total);
    const pageCalls = (await paths(key.key_id)).slice(1);
    expect(pageCalls).toHaveLength(Math.ceil(total / 100));
    expect(pageCalls[0]).toBe('/api/v1/invoices?page=1&per_page=100');
  });

  it('reads the same records without prefetch, and stops early when told', async () => {
    const { c, key } = await fresh();
    let count = 0;
    for await (const page of c.customers.pages({ status: 'active' }, { prefetch: false, perPage: 50 })) count += page.data.length;
    const total = (await c.customers.list({ status: 'active', per_page: 1 })).meta?.total;
    expect(count).toBe(total);
    const before = (await paths(key.key_id)).length;
    for await (const cust of c.customers.all({}, { prefetch: false, cache: 'skip' })) {
      expect(cust.id).toBeGreaterThan(0);
      break;
    }
    expect((await paths(key.key_id)).length).toBe(before + 1);
  });

  it('sends updated_since exactly, with + as %2B', async () => {
    const { c, key } = await fresh();
    const since = '2026-01-01T00:00:00+13:00';
    const page = await c.invoices.list({ updated_since: since, per_page: 100 });
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.meta?.total).toBeLessThan((await c.invoices.list({ per_page: 1 })).meta?.total as number);
    expect(page.data.every((i) => Date.parse(i.updated_at) >= Date.parse(since))).toBe(true);
    expect((await paths(key.key_id))[0]).toBe('/api/v1/invoices?per_page=100&updated_since=2026-01-01T00%3A00%3A00%2B13%3A00');
  });
});

describe('the read cache', () => {
  it('serves a repeated read from the cache and counts hits and misses', async () => {
    const { c, key } = await fresh();
    const a = await c.invoices.get(5);
    const b = await c.invoices.get(5);
    expect(b).toBe(a);
    expect(c.stats().cache).toMatchObject({ hits: 1, misses: 1, entries: 1 });
    expect(await paths(key.key_id)).toEqual(['/api/v1/invoices/5']);
    expect(() => {
      (a as { total: string }).total = '0.00';
    }).toThrow(TypeError);
  });

  it('keys lists by their query, and shares one request among concurrent identical reads', async () => {
    const { c, key } = await fresh();
    await Promise.all(Array.from({ length: 10 }, () => c.products.list({ low_stock: true })));
    await c.products.list({ low_stock: false });
    await c.products.list({ low_stock: true });
    await c.products.list({ per_page: 5, active: true });
    await c.products.list({ active: true, per_page: 5 });
    expect(await paths(key.key_id)).toEqual([
      '/api/v1/products?low_stock=true',
      '/api/v1/products?low_stock=false',
      '/api/v1/products?active=true&per_page=5',
    ]);
  });

  it('can be bypassed: refresh reads anew and stores, skip neither reads nor stores', async () => {
    const { c, key } = await fresh();
    await c.quotes.get(3);
    await c.quotes.get(3, { cache: 'refresh' });
    await c.quotes.get(3, { cache: 'skip' });
    await c.quotes.get(3);
    expect(await paths(key.key_id)).toEqual(['/api/v1/quotes/3', '/api/v1/quotes/3', '/api/v1/quotes/3']);
  });

  it('expires entries by the TTL of their kind', async () => {
    const { c, key } = await fresh('test', { cache: { ttlMs: { payments: 30 } as never } });
    await c.payments.get(2);
    await c.customers.get(2);
    await new Promise((r) => setTimeout(r, 60));
    await c.payments.get(2);
    await c.customers.get(2);
    expect(await paths(key.key_id)).toEqual(['/api/v1/payments/2', '/api/v1/customers/2', '/api/v1/payments/2']);
  });

  it('invalidate(kind, id) drops that record and the lists of its kind, nothing else', async () => {
    const { c, key } = await fresh();
    await c.invoices.get(7);
    await c.invoices.get(8);
    await c.invoices.list({ status: 'paid' });
    await c.customers.get(1);
    c.invalidate('invoices', 7);
    await c.invoices.get(7);
    await c.invoices.get(8);
    await c.invoices.list({ status: 'paid' });
    await c.customers.get(1);
    expect(await paths(key.key_id)).toEqual([
      '/api/v1/invoices/7',
      '/api/v1/invoices/8',
      '/api/v1/invoices?status=paid',
      '/api/v1/customers/1',
      '/api/v1/invoices/7',
      '/api/v1/invoices?status=paid',
    ]);
  });

  it('our own create invalidates the lists it touches', async () => {
    const { c } = await fresh('live');
    const before = await c.customers.list({ per_page: 1 });
    const made = await c.customers.create({ name: 'Cache Check Ltd', email: 'cache@example.com' });
    const after = await c.customers.list({ per_page: 1 });
    expect(after.meta?.total).toBe((before.meta?.total as number) + 1);
    expect((await c.customers.get(made.data.id)).name).toBe('Cache Check Ltd');
  });
});

describe('creates', () => {
  it("reuses the caller's idempotency key: the repeat is a replay, not a second record", async () => {
    const { c } = await fresh('live');
    const idempotencyKey = crypto.randomUUID();
    const input = { name: 'Once Only Ltd', address: { city: 'Napier' } };
    const first = await c.customers.create(input, { idempotencyKey });
    const again = await c.customers.create(input, { idempotencyKey });
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.idempotencyKey).toBe(idempotencyKey);
    expect(again.data.id).toBe(first.data.id);
    const named = [];
    for await (const x of c.customers.all({ search: 'Once Only' }, { cache: 'skip' })) named.push(x);
    expect(named).toHaveLength(1);
    const err = await c.customers.create({ name: 'Someone Else' }, { idempotencyKey }).catch(logs.caught);
    expect(err).toBeInstanceOf(Invalid);
    expect(Object.keys((err as Invalid).fieldErrors)).toEqual(['Idempotency-Key']);
  });

  it('creates a draft invoice with exact decimal amounts', async () => {
    const { c } = await fresh('live');
    const made = await c.invoices.create({
      customer_id: 1,
      items: [{ description: 'Consulting', quantity: '2.5', unit_price: '120.10' }],
    });
    expect(made.data).toMatchObject({ status: 'draft', subtotal: '300.25' });
    expect(made.data.items[0]?.quantity).toBe('2.500000');
    expect(made.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stops waiting when the caller aborts', async () => {
    const { c } = await fresh();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(c.invoices.get(1, { signal: controller.signal })).rejects.toThrow('stop');
  });
});
