// Contract: more businesses in the sandbox (docs/service-contract.md, "The sandbox's admin interface"):
// the `businesses` option and POST /_sandbox/businesses each make a business with sample books and keys of
// its own; its keys see only its books (the spec: "Every record is scoped to the business of the key");
// its keys can be suspended through the admin interface as any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, get, type Json, listAll, type SandboxHandle, type Session, signIn, signInRaw, start } from './sandbox-http.js';

const TODAY = '2026-03-10';
let sb: SandboxHandle;

beforeAll(async () => {
  sb = await start({ today: TODAY, businesses: 3, rateLimit: 1_000_000, signInLimit: 1000 });
});

afterAll(async () => {
  await sb?.close();
});

async function newBusiness(body: unknown = {}): Promise<Json> {
  const reply = await admin(sb, 'POST', '/businesses', body);
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('more businesses', () => {
  it('starts with the businesses asked for, each with a name, currency and time zone of its own', async () => {
    const reply = await admin(sb, 'GET', '/businesses');
    expect(reply.status).toBe(200);
    const ids = reply.body.data.map((b: Json) => b.id);
    expect(ids.slice(0, 3)).toEqual([1, 2, 3]);
    const names = new Set(reply.body.data.map((b: Json) => b.name));
    expect(names.size).toBe(reply.body.data.length);
    expect(reply.body.data[2]).toMatchObject({ id: 3, currency: 'NZD', time_zone: 'Pacific/Auckland', api_access: true });
  });

  it('makes a business with keys that sign in to it and read only its books', async () => {
    const made = await newBusiness({ name: 'Kowhai Cleaning Ltd' });
    expect(made).toMatchObject({ name: 'Kowhai Cleaning Ltd', currency: made.id % 2 === 1 ? 'NZD' : 'AUD' });
    expect(made.keys.live.key_id).toMatch(/^svck_live_/);
    expect(made.keys.test.secret).toMatch(/^svc_test_/);
    const session = await signIn(sb.baseUrl, made.keys.live);
    expect(session.signIn.business).toEqual({ id: made.id, name: 'Kowhai Cleaning Ltd' });
    expect(session.signIn.scopes).toContain('invoices.write');
    const invoices = await listAll(session, '/api/v1/invoices');
    const customers = await listAll(session, '/api/v1/customers');
    expect(invoices.length).toBeGreaterThan(0);
    expect(customers.length).toBeGreaterThan(0);
    for (const invoice of invoices) expect(invoice.currency).toBe(made.currency);
    // Another business's key sees none of them: 404, as for an id that never existed.
    const main = await signIn(sb.baseUrl, sb.keys.live);
    for (const id of [invoices[0].id, invoices.at(-1).id]) expect((await get(main, `/api/v1/invoices/${id}`)).status).toBe(404);
    expect((await get(main, `/api/v1/customers/${customers[0].id}`)).status).toBe(404);
    expect((await get(session, `/api/v1/invoices/${invoices[0].id}`)).status).toBe(200);
    const test = await signIn(sb.baseUrl, made.keys.test);
    expect(test.signIn).toMatchObject({ mode: 'test', business: { id: made.id } });
    expect((await listAll(test, '/api/v1/invoices')).map((i) => i.id)).toEqual(invoices.map((i) => i.id));
  });

  it('makes the same books for the same business whether made at start or later', async () => {
    const other = await start({ today: TODAY, businesses: 2, rateLimit: 1_000_000 });
    try {
      const made = (await admin(other, 'POST', '/businesses', {})).body;
      expect(made.id).toBe(3);
      const atStart = (await admin(sb, 'GET', '/businesses')).body.data[2];
      expect(made.name).toBe(atStart.name);
      const later = await signIn(other.baseUrl, made.keys.live);
      const key = (await admin(sb, 'POST', '/keys', { mode: 'live', business_id: 3 })).body;
      const early = await signIn(sb.baseUrl, key);
      // The same records but for the host in portal links.
      const read = async (session: Session, base: string, path: string) =>
        JSON.stringify(await listAll(session, path)).replaceAll(base, '');
      for (const path of ['/api/v1/invoices', '/api/v1/customers', '/api/v1/payments', '/api/v1/quotes']) {
        expect(await read(later, other.baseUrl, path)).toBe(await read(early, sb.baseUrl, path));
      }
    } finally {
      await other.close();
    }
  });

  it('suspends and resumes a new business key: 403 while suspended, in the service words', async () => {
    const made = await newBusiness();
    expect((await admin(sb, 'POST', `/keys/${made.keys.live.key_id}/suspend`)).status).toBe(200);
    const refused = await signInRaw(sb.baseUrl, made.keys.live);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/suspended/i);
    expect((await signInRaw(sb.baseUrl, made.keys.test)).status).toBe(201);
    expect((await admin(sb, 'POST', `/keys/${made.keys.live.key_id}/resume`)).status).toBe(200);
    expect((await signInRaw(sb.baseUrl, made.keys.live)).status).toBe(201);
  });

  it('acts on a named business in admin operations, and refuses one that does not exist (422)', async () => {
    const made = await newBusiness();
    const session = await signIn(sb.baseUrl, made.keys.live);
    const customer = (await listAll(session, '/api/v1/customers?archived=false'))[0];
    const quote = await admin(sb, 'POST', `/quotes?business_id=${made.id}`, { customer_id: customer.id, total: '100.00' });
    expect(quote.status).toBe(201);
    const accepted = await admin(sb, 'POST', `/quotes/${quote.body.data.id}/accept?business_id=${made.id}`);
    expect(accepted.status).toBe(200);
    expect((await get(session, `/api/v1/quotes/${quote.body.data.id}`)).body.data.status).toBe('accepted');
    const none = await admin(sb, 'POST', `/quotes/${quote.body.data.id}/accept?business_id=999`);
    expect(none.status).toBe(422);
    expect(none.body.errors.business_id[0]).toMatch(/business_id must be one of/);
    const webhook = await admin(sb, 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', business_id: 999 });
    expect(webhook.status).toBe(422);
    for (const name of ['', 42, 'x'.repeat(201)]) {
      const bad = await admin(sb, 'POST', '/businesses', { name });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.name).toBeDefined();
    }
  });
});
