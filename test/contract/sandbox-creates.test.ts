// Contract: the two creates (spec "POST /api/v1/customers", "POST /api/v1/invoices", "Modes"; open-points
// "Records", "Wire details"): the whole record, test mode saves nothing, live mode saves with the business's
// next code and number, exact decimal arithmetic. Idempotency-Key is in sandbox-idempotency.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  cents,
  get,
  isNzTimestamp,
  type Json,
  listAll,
  nzDate,
  post,
  type Reply,
  type SandboxHandle,
  type Session,
  send,
  signIn,
  sortedKeys,
  start,
  tally,
} from './sandbox-http.js';
import { checkCustomer, checkInvoice, checkLine, lineTotalCents, taxCents } from './sandbox-records.js';

let sb: SandboxHandle;
let test: Session;
let live: Session;
/** An active customer of the main business (the same in test and live books). */
let customerId: number;
/** Tax categories are not readable through the interface; their effect on a line is. */
const taxCategoryByRate: Record<string, number> = {};
let testTallies: Record<string, { total: number; maxId: number }>;

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  test = await signIn(sb.baseUrl, sb.keys.test);
  live = await signIn(sb.baseUrl, sb.keys.live);
  const active = await get(test, '/api/v1/customers?status=active&per_page=1');
  customerId = active.body.data[0].id;
  testTallies = { customers: await tally(test, 'customers'), invoices: await tally(test, 'invoices') };
  for (let id = 1; id <= 6; id++) {
    const reply = await createInvoice(test, [{ description: 'x', quantity: 1, unit_price: '100.00', tax_category_id: id }]);
    if (reply.status === 201) taxCategoryByRate[reply.body.data.items[0].tax_amount] = id;
  }
});

afterAll(async () => {
  await sb?.close();
});

const idem = (key = randomUUID()): Record<string, string> => ({ 'idempotency-key': key });

async function today(): Promise<string> {
  const clock = await admin(sb, 'GET', '/clock');
  return nzDate(Date.parse(clock.body.now));
}

function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  return t.toISOString().slice(0, 10);
}

const codeNumber = (code: string): number => Number(code.split('-')[1]);

async function nextCode(session: Session, resource: 'customers' | 'invoices', field: 'code' | 'number', prefix: string): Promise<string> {
  const all = await listAll(session, `/api/v1/${resource}`);
  const max = Math.max(...all.map((r) => codeNumber(r[field])));
  return `${prefix}-${String(max + 1).padStart(5, '0')}`;
}

function lineInvoice(lines: Json[]): Json {
  return { customer_id: customerId, items: lines };
}

async function createInvoice(session: Session, lines: Json[], extra: Json = {}): Promise<Reply> {
  return post(session, '/api/v1/invoices', { ...lineInvoice(lines), ...extra }, idem());
}

describe('POST /api/v1/customers', () => {
  it('in test mode: a realistic record, an id above every sample id, nothing saved', async () => {
    const before = await tally(test, 'customers');
    const body = {
      name: 'Kauri Joinery Ltd',
      email: 'accounts@kauri.example',
      phone: '+64 9 555 0100',
      tax_number: '123-456-789',
      address: { line1: '12 Quay Street', city: 'Auckland', postal_code: '1010' },
      notes: 'Prefers email. Not shown in the output.',
    };
    const reply = await post(test, '/api/v1/customers', body, idem());
    expect(reply.status).toBe(201);
    expect(reply.headers['x-service-mode']).toBe('test');
    expect(sortedKeys(reply.body)).toEqual(['data']);
    const c = reply.body.data;
    checkCustomer(c);
    expect(c).not.toHaveProperty('notes');
    expect(c).toMatchObject({ name: body.name, email: body.email, phone: body.phone, tax_number: body.tax_number, status: 'active' });
    expect(c.address).toEqual({ line1: '12 Quay Street', line2: null, city: 'Auckland', region: null, postal_code: '1010' });
    expect(c.id).toBeGreaterThan(before.maxId);
    expect(c.created_at).toBe(c.updated_at);
    expect((await get(test, `/api/v1/customers/${c.id}`)).status).toBe(404);
    expect(await tally(test, 'customers')).toEqual(before);
    const search = await get(test, `/api/v1/customers?search=${encodeURIComponent(body.name)}`);
    expect(search.body.meta.total).toBe(0);
  });

  it('in live mode: saved with the next customer code, readable, and last in the list', async () => {
    const expectedCode = await nextCode(live, 'customers', 'code', 'CUS');
    const before = await tally(live, 'customers');
    const reply = await post(live, '/api/v1/customers', { name: 'Tui Landscaping' }, idem());
    expect(reply.status).toBe(201);
    expect(reply.headers['x-service-mode']).toBe('live');
    const c = reply.body.data;
    checkCustomer(c);
    expect(c.code).toBe(expectedCode);
    expect(c).toMatchObject({ name: 'Tui Landscaping', email: null, phone: null, tax_number: null, status: 'active' });
    expect(c.address).toEqual({ line1: null, line2: null, city: null, region: null, postal_code: null });
    expect(c.id).toBeGreaterThan(before.maxId);
    const read = await get(live, `/api/v1/customers/${c.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(c);
    const after = await tally(live, 'customers');
    expect(after).toEqual({ total: before.total + 1, maxId: c.id });
    const since = await get(live, `/api/v1/customers?updated_since=${encodeURIComponent(c.created_at)}`);
    expect(since.body.data.map((x: Json) => x.id)).toContain(c.id);
    const second = await post(live, '/api/v1/customers', { name: 'Pohutukawa Cafe' }, idem());
    expect(second.body.data.code).toBe(`CUS-${String(codeNumber(expectedCode) + 1).padStart(5, '0')}`);
    // The test books never change.
    expect((await get(test, `/api/v1/customers/${c.id}`)).status).toBe(404);
  });

  it('keeps text as sent, in UTF-8', async () => {
    const name = 'Māori Kai & Café — 🥝 “Ōtautahi”';
    const reply = await post(live, '/api/v1/customers', { name, address: { city: 'Ōtautahi' } }, idem());
    expect(reply.status).toBe(201);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    const read = await get(live, `/api/v1/customers/${reply.body.data.id}`);
    expect(read.body.data.name).toBe(name);
    expect(read.body.data.address.city).toBe('Ōtautahi');
    const found = await get(live, `/api/v1/customers?search=${encodeURIComponent('café — 🥝')}`);
    expect(found.body.data.map((c: Json) => c.id)).toEqual([reply.body.data.id]);
  });

  it('accepts notes of exactly 2,000 characters and a create without Idempotency-Key', async () => {
    const reply = await post(test, '/api/v1/customers', { name: 'Long Notes Ltd', notes: 'n'.repeat(2000) });
    expect(reply.status).toBe(201);
    expect(reply.body.data).not.toHaveProperty('notes');
  });
});

describe('POST /api/v1/invoices', () => {
  it('in test mode: a draft with the exact arithmetic of the spec, nothing saved', async () => {
    const before = await tally(test, 'invoices');
    const reply = await createInvoice(test, [{ description: 'Widget', quantity: '3', unit_price: '19.99' }]);
    expect(reply.status).toBe(201);
    expect(reply.headers['x-service-mode']).toBe('test');
    const inv = reply.body.data;
    checkInvoice(inv, true, sb.baseUrl);
    expect(inv.status).toBe('draft');
    expect(inv.items).toEqual([
      { description: 'Widget', quantity: '3.000000', unit_price: '19.99', tax_amount: '9.00', line_total: '59.97', product_id: null },
    ]);
    expect(inv).toMatchObject({
      subtotal: '59.97',
      tax_total: '9.00',
      total: '68.97',
      balance: '68.97',
      currency: 'NZD',
      sales_channel: null,
    });
    expect(inv.customer.id).toBe(customerId);
    expect(inv.id).toBeGreaterThan(before.maxId);
    expect((await get(test, `/api/v1/invoices/${inv.id}`)).status).toBe(404);
    expect(await tally(test, 'invoices')).toEqual(before);
  });

  it('dates: issue_date defaults to today in the business zone, due_date to 14 days after', async () => {
    const day = await today();
    const defaults = await createInvoice(test, [{ description: 'A', quantity: 1, unit_price: '1.00' }]);
    expect(defaults.body.data.issue_date).toBe(day);
    expect(defaults.body.data.due_date).toBe(addDays(day, 14));
    const given = await createInvoice(test, [{ description: 'A', quantity: 1, unit_price: '1.00' }], {
      issue_date: '2026-12-30',
      notes: 'Thanks for your business',
      terms: '20th of the month following',
    });
    expect(given.body.data.issue_date).toBe('2026-12-30');
    expect(given.body.data.due_date).toBe('2027-01-13');
    const both = await createInvoice(test, [{ description: 'A', quantity: 1, unit_price: '1.00' }], {
      issue_date: '2026-12-01',
      due_date: '2026-12-01',
    });
    expect(both.status).toBe(201);
    expect(both.body.data.due_date).toBe('2026-12-01');
  });

  it('rounds half-up on exact decimals, never through floating point', async () => {
    const reply = await createInvoice(test, [
      { description: 'float trap', quantity: '1.005', unit_price: '1.00' },
      { description: 'tax 0.045', quantity: '1', unit_price: '0.30' },
      { description: 'total 0.025', quantity: '2.5', unit_price: '0.01' },
      { description: 'thirds', quantity: '0.333333', unit_price: '10.00' },
      { description: 'JSON number', quantity: 0.1, unit_price: '0.20' },
      { description: 'four places', quantity: 3, unit_price: '1.2345' },
    ]);
    expect(reply.status).toBe(201);
    const inv = reply.body.data;
    const got = inv.items.map((l: Json) => [l.quantity, l.unit_price, l.line_total, l.tax_amount]);
    expect(got).toEqual([
      ['1.005000', '1.00', '1.01', '0.15'],
      ['1.000000', '0.30', '0.30', '0.05'],
      ['2.500000', '0.01', '0.03', '0.00'],
      ['0.333333', '10.00', '3.33', '0.50'],
      ['0.100000', '0.20', '0.02', '0.00'],
      ['3.000000', '1.2345', '3.70', '0.56'],
    ]);
    expect(inv).toMatchObject({ subtotal: '8.39', tax_total: '1.26', total: '9.65', balance: '9.65' });
    const small = await createInvoice(test, [
      { description: 'a', quantity: 1, unit_price: '0.10' },
      { description: 'b', quantity: 1, unit_price: '0.20' },
    ]);
    expect(small.body.data.subtotal).toBe('0.30');
  });

  it('keeps full precision on large amounts', async () => {
    const quantity = '123456.789012';
    const unitPrice = '9876.5432';
    const reply = await createInvoice(test, [{ description: 'bulk', quantity, unit_price: unitPrice }]);
    expect(reply.status).toBe(201);
    const line = reply.body.data.items[0];
    const total = lineTotalCents(quantity, unitPrice);
    const asText = (c: bigint): string => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
    expect(line.line_total).toBe(asText(total));
    expect(line.tax_amount).toBe(asText(taxCents(total, 15n)));
    checkLine(line);
  });

  it('prints unit_price as a decimal string with at least two places', async () => {
    const reply = await createInvoice(test, [
      { description: 'whole', quantity: 2, unit_price: '5' },
      { description: 'one place', quantity: 1, unit_price: '19.9' },
    ]);
    expect(reply.status).toBe(201);
    expect(reply.body.data.items.map((l: Json) => l.unit_price)).toEqual(['5.00', '19.90']);
    for (const line of reply.body.data.items) checkLine(line);
  });

  it('a tax_category_id sets the line rate: the default 15% and a 0% category; an unknown one is 422', async () => {
    expect(Object.keys(taxCategoryByRate).sort()).toEqual(['0.00', '15.00']);
    const unknown = await createInvoice(test, [{ description: 'x', quantity: 1, unit_price: '1.00', tax_category_id: 999 }]);
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['items.0.tax_category_id']);
    const none = await createInvoice(test, [{ description: 'x', quantity: 1, unit_price: '100.00' }]);
    expect(none.body.data.items[0].tax_amount).toBe('15.00');
  });

  it('a line naming a product takes its description, price and tax category unless they are sent', async () => {
    const products = (await listAll(test, '/api/v1/products?active=true')).slice(0, 20);
    for (const p of products) {
      const reply = await createInvoice(test, [{ product_id: p.id, quantity: 2 }]);
      expect(reply.status, `product ${p.id}`).toBe(201);
      const line = reply.body.data.items[0];
      checkLine(line);
      expect(line.product_id).toBe(p.id);
      expect(line.description).toBe(p.description);
      expect(line.unit_price).toBe(p.default_price);
      expect(cents(line.line_total)).toBe(lineTotalCents('2', p.default_price));
    }
    // Each product's own tax category applies: some products are zero-rated though the default is 15%.
    const taxes = new Set<string>();
    for (const product of await listAll(test, '/api/v1/products?active=true')) {
      const line = (await createInvoice(test, [{ product_id: product.id, quantity: 1, unit_price: '100.00' }])).body.data.items[0];
      taxes.add(line.tax_amount);
      const forced = await createInvoice(test, [
        { product_id: product.id, quantity: 1, unit_price: '100.00', tax_category_id: taxCategoryByRate['15.00'] },
      ]);
      expect(forced.body.data.items[0].tax_amount).toBe('15.00');
    }
    expect([...taxes].sort()).toEqual(['0.00', '15.00']);
    const p = products[0];
    const override = await createInvoice(test, [
      { product_id: p.id, quantity: 1, description: 'Custom words', unit_price: '10.00', tax_category_id: taxCategoryByRate['0.00'] },
    ]);
    expect(override.status).toBe(201);
    expect(override.body.data.items[0]).toEqual({
      description: 'Custom words',
      quantity: '1.000000',
      unit_price: '10.00',
      tax_amount: '0.00',
      line_total: '10.00',
      product_id: p.id,
    });
  });

  it('takes 200 lines', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => ({ description: `line ${i}`, quantity: 1, unit_price: '0.05' }));
    const reply = await createInvoice(test, lines);
    expect(reply.status).toBe(201);
    expect(reply.body.data.items).toHaveLength(200);
    expect(reply.body.data.subtotal).toBe('10.00');
    // Each line's tax is rounded on its own (0.0075 -> 0.01), then summed: not 15% of the subtotal.
    expect(reply.body.data.tax_total).toBe('2.00');
  });

  it('in live mode: saved as a draft with the next invoice number; get and list agree with the create', async () => {
    const expectedNumber = await nextCode(live, 'invoices', 'number', 'INV');
    const before = await tally(live, 'invoices');
    const reply = await createInvoice(live, [
      { description: 'Consulting', quantity: '3', unit_price: '120.00' },
      { description: 'Export freight', quantity: 1, unit_price: '45.50', tax_category_id: taxCategoryByRate['0.00'] },
    ]);
    expect(reply.status).toBe(201);
    const inv = reply.body.data;
    checkInvoice(inv, true, sb.baseUrl);
    expect(inv.number).toBe(expectedNumber);
    expect(inv).toMatchObject({ status: 'draft', subtotal: '405.50', tax_total: '54.00', total: '459.50', balance: '459.50' });
    expect(isNzTimestamp(inv.created_at), `inv.created_at: ${inv.created_at}`).toBe(true);
    const read = await get(live, `/api/v1/invoices/${inv.id}`);
    expect(read.body.data).toEqual(inv);
    const after = await tally(live, 'invoices');
    expect(after).toEqual({ total: before.total + 1, maxId: inv.id });
    const drafts = await listAll(live, `/api/v1/invoices?status=draft&customer_id=${customerId}`);
    const { items: _items, ...listItem } = inv;
    expect(drafts.at(-1)).toEqual(listItem);
    const portal = await send('GET', inv.portal_url);
    expect(portal.status).toBe(200);
    expect(portal.body).toMatchObject({ number: inv.number, total: inv.total });
  });
});

describe('afterwards', () => {
  it('the test books are as they were: no create of this file reached them', async () => {
    for (const [r, t] of Object.entries(testTallies)) expect(await tally(test, r), r).toEqual(t);
  });
});
