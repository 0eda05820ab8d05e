// Contract: every list and get, every record's fields and types as the spec's tables give them, and every
// filter (spec "Resources and their fields", "Endpoints"; open-points "Wire details", "Records",
// "Sample books"). Pagination and `updated_since` are in sandbox-pagination.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cents, get, type Json, listAll, type SandboxHandle, type Session, signIn, sortedKeys, start } from './sandbox-http.js';
import { CHECKERS, checkInvoice, checkLine, INVOICE_STATUSES, QUOTE_STATUSES, RESOURCES, type Resource } from './sandbox-records.js';

let sb: SandboxHandle;
let test: Session;
let live: Session;
/** Every record of each list in test mode, in the order the service returned them. */
const books = {} as Record<Resource, Json[]>;

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  test = await signIn(sb.baseUrl, sb.keys.test);
  live = await signIn(sb.baseUrl, sb.keys.live);
  for (const r of RESOURCES) books[r] = await listAll(test, `/api/v1/${r}`);
});

afterAll(async () => {
  await sb?.close();
});

const ids = (records: Json[]): number[] => records.map((r) => r.id);

describe('the sample books', () => {
  it('hold what open-points.md promises, in ascending id order', () => {
    const at = books;
    expect(at.customers.length).toBeGreaterThanOrEqual(120);
    expect(at.customers.some((c) => c.status === 'archived')).toBe(true);
    expect(at.products.length).toBeGreaterThanOrEqual(60);
    expect(at.products.some((p) => !p.is_active)).toBe(true);
    expect(at.products.some((p) => p.type === 'service')).toBe(true);
    expect(at.products.filter((p) => p.track_stock && p.stock.low).length).toBeGreaterThanOrEqual(3);
    expect(at.invoices.length).toBeGreaterThanOrEqual(400);
    for (const s of INVOICE_STATUSES)
      expect(
        at.invoices.some((i) => i.status === s),
        s,
      ).toBe(true);
    for (const c of ['NZD', 'AUD', 'USD'])
      expect(
        at.invoices.some((i) => i.currency === c),
        c,
      ).toBe(true);
    expect(at.invoices.some((i) => i.sales_channel === 'pos')).toBe(true);
    expect(at.quotes.length).toBeGreaterThanOrEqual(80);
    for (const s of QUOTE_STATUSES)
      expect(
        at.quotes.some((q) => q.status === s),
        s,
      ).toBe(true);
    expect(at.payments.length).toBeGreaterThanOrEqual(250);
    expect(at.payments.some((p) => p.allocations.length > 1)).toBe(true);
    const invoiceById = new Map(at.invoices.map((i) => [i.id, i]));
    expect(at.payments.some((p) => p.allocations.some((a: Json) => cents(a.amount) < cents(invoiceById.get(a.invoice_id).total)))).toBe(
      true,
    );
    const created = at.invoices.map((i) => Date.parse(i.created_at));
    expect((Math.max(...created) - Math.min(...created)) / 86_400_000).toBeGreaterThan(365);
    const timestamps = [...at.customers, ...at.invoices].map((r) => r.updated_at);
    expect(timestamps.some((t) => t.endsWith('+13:00'))).toBe(true);
    expect(timestamps.some((t) => t.endsWith('+12:00'))).toBe(true);
    for (const r of RESOURCES) {
      const list = ids(at[r]);
      expect(new Set(list).size).toBe(list.length);
      expect(list).toEqual([...list].sort((a, b) => a - b));
    }
  });

  it('give every record exactly the fields and types of the spec', () => {
    for (const r of RESOURCES) for (const record of books[r]) CHECKERS[r](record, sb.baseUrl);
  });

  it('link payments to invoices of the same customer and currency, by number', () => {
    const invoiceById = new Map(books.invoices.map((i) => [i.id, i]));
    for (const p of books.payments) {
      for (const a of p.allocations) {
        const inv = invoiceById.get(a.invoice_id);
        expect(inv, `payment ${p.id} allocation to ${a.invoice_id}`).toBeDefined();
        expect(a.invoice_number).toBe(inv.number);
        expect(inv.customer.id).toBe(p.customer.id);
        expect(inv.currency).toBe(p.currency);
      }
    }
  });

  it('name the customer of each invoice, quote and payment by its real id and name', () => {
    const customers = new Map(books.customers.map((c) => [c.id, c.name]));
    for (const r of ['invoices', 'quotes', 'payments'] as const) {
      for (const rec of books[r]) expect(customers.get(rec.customer.id), `${r} ${rec.id}`).toBe(rec.customer.name);
    }
  });

  it('read the same in live mode before anything is written', async () => {
    for (const r of RESOURCES) {
      const reply = await get(live, `/api/v1/${r}?per_page=5`);
      expect(reply.status).toBe(200);
      expect(reply.headers['x-service-mode']).toBe('live');
      expect(reply.body.meta.total).toBe(books[r].length);
      expect(reply.body.data).toEqual(
        books[r].slice(0, 5).map((rec) => (r === 'invoices' ? { ...rec, portal_url: expect.any(String) } : rec)),
      );
    }
  });
});

describe('every answer', () => {
  it('is JSON in UTF-8', async () => {
    for (const r of RESOURCES) {
      for (const path of [`/api/v1/${r}?per_page=2`, `/api/v1/${r}/${books[r][0].id}`, `/api/v1/${r}/0`]) {
        expect((await get(test, path)).headers['content-type']).toBe('application/json; charset=utf-8');
      }
    }
  });
});

describe('get one record', () => {
  it('returns the list item wrapped in data, for every resource', async () => {
    for (const r of ['customers', 'quotes', 'payments', 'products'] as const) {
      const list = books[r];
      for (const rec of [list[0], list[Math.floor(list.length / 2)], list[list.length - 1]]) {
        const reply = await get(test, `/api/v1/${r}/${rec.id}`);
        expect(reply.status).toBe(200);
        expect(reply.headers['x-service-mode']).toBe('test');
        expect(sortedKeys(reply.body)).toEqual(['data']);
        expect(reply.body.data).toEqual(rec);
      }
    }
  });

  it('returns every invoice with its items and the exact arithmetic of its lines', async () => {
    const all = books.invoices;
    for (let i = 0; i < all.length; i += 25) {
      const batch = all.slice(i, i + 25);
      const replies = await Promise.all(batch.map((inv) => get(test, `/api/v1/invoices/${inv.id}`)));
      replies.forEach((reply, k) => {
        const listItem = batch[k];
        expect(reply.status).toBe(200);
        const inv = reply.body.data;
        checkInvoice(inv, true, sb.baseUrl);
        const { items, ...rest } = inv;
        expect(rest).toEqual(listItem);
        expect(items.length).toBeGreaterThanOrEqual(1);
        items.forEach(checkLine);
        expect(cents(inv.subtotal)).toBe(items.reduce((s: bigint, l: Json) => s + cents(l.line_total), 0n));
        expect(cents(inv.tax_total)).toBe(items.reduce((s: bigint, l: Json) => s + cents(l.tax_amount), 0n));
      });
    }
  });
});

/** The ids a filtered list returns, all pages followed. */
async function filtered(resource: Resource, query: string): Promise<number[]> {
  return ids(await listAll(test, `/api/v1/${resource}?${query}`));
}

describe('filters', () => {
  it('customers: status and search (part of the name)', async () => {
    for (const status of ['active', 'archived']) {
      expect(await filtered('customers', `status=${status}`)).toEqual(ids(books.customers.filter((c) => c.status === status)));
    }
    const sample = books.customers[7];
    const part = sample.name.slice(1, 5);
    const expected = ids(books.customers.filter((c) => c.name.toLowerCase().includes(part.toLowerCase())));
    expect(expected).toContain(sample.id);
    expect(await filtered('customers', `search=${encodeURIComponent(part)}`)).toEqual(expected);
    expect(await filtered('customers', `search=${encodeURIComponent(sample.name)}&status=${sample.status}`)).toContain(sample.id);
    expect(await filtered('customers', 'search=zzqq-no-such-name')).toEqual([]);
  });

  it('invoices: status, customer_id and sales_channel, alone and together', async () => {
    for (const status of INVOICE_STATUSES) {
      expect(await filtered('invoices', `status=${status}`), status).toEqual(ids(books.invoices.filter((i) => i.status === status)));
    }
    const customerId = books.invoices[3].customer.id;
    expect(await filtered('invoices', `customer_id=${customerId}`)).toEqual(
      ids(books.invoices.filter((i) => i.customer.id === customerId)),
    );
    expect(await filtered('invoices', 'sales_channel=pos')).toEqual(ids(books.invoices.filter((i) => i.sales_channel === 'pos')));
    expect(await filtered('invoices', 'sales_channel=no-such-channel')).toEqual([]);
    expect(await filtered('invoices', `status=paid&customer_id=${customerId}`)).toEqual(
      ids(books.invoices.filter((i) => i.status === 'paid' && i.customer.id === customerId)),
    );
  });

  it('quotes: status', async () => {
    for (const status of QUOTE_STATUSES) {
      expect(await filtered('quotes', `status=${status}`), status).toEqual(ids(books.quotes.filter((q) => q.status === status)));
    }
  });

  it('payments: customer_id', async () => {
    const split = books.payments.find((p) => p.allocations.length > 1);
    for (const customerId of [books.payments[0].customer.id, split.customer.id]) {
      expect(await filtered('payments', `customer_id=${customerId}`)).toEqual(
        ids(books.payments.filter((p) => p.customer.id === customerId)),
      );
    }
    expect(await filtered('payments', 'customer_id=999999999')).toEqual([]);
  });

  it('products: active, barcode, sku, track_stock and low_stock', async () => {
    const p = books.products;
    for (const value of [true, false]) {
      expect(await filtered('products', `active=${value}`)).toEqual(ids(p.filter((x) => x.is_active === value)));
      expect(await filtered('products', `track_stock=${value}`)).toEqual(ids(p.filter((x) => x.track_stock === value)));
      expect(await filtered('products', `low_stock=${value}`)).toEqual(ids(p.filter((x) => (x.track_stock && x.stock.low) === value)));
    }
    const withBarcode = p.find((x) => x.barcode !== null);
    expect(await filtered('products', `barcode=${encodeURIComponent(withBarcode.barcode)}`)).toEqual(
      ids(p.filter((x) => x.barcode === withBarcode.barcode)),
    );
    expect(await filtered('products', `barcode=${encodeURIComponent(withBarcode.barcode.slice(0, -1))}`)).toEqual([]);
    const withSku = p.find((x) => x.sku !== null);
    expect(await filtered('products', `sku=${encodeURIComponent(withSku.sku)}`)).toEqual(ids(p.filter((x) => x.sku === withSku.sku)));
    expect(await filtered('products', `sku=${encodeURIComponent(withSku.sku.slice(0, -1))}`)).toEqual([]);
    expect(await filtered('products', 'low_stock=true&active=true')).toEqual(
      ids(p.filter((x) => x.track_stock && x.stock.low && x.is_active)),
    );
  });

  it('refuses an unrecognised value of an enumerated filter, or a non-integer customer_id, with 422 keyed by the parameter', async () => {
    const cases: [string, string][] = [
      ['/api/v1/customers?status=deleted', 'status'],
      ['/api/v1/invoices?status=unpaid', 'status'],
      ['/api/v1/invoices?customer_id=abc', 'customer_id'],
      ['/api/v1/invoices?customer_id=1.5', 'customer_id'],
      ['/api/v1/quotes?status=open', 'status'],
      ['/api/v1/payments?customer_id=x1', 'customer_id'],
      ['/api/v1/products?active=maybe', 'active'],
      ['/api/v1/products?track_stock=yes', 'track_stock'],
      ['/api/v1/products?low_stock=2', 'low_stock'],
    ];
    for (const [path, param] of cases) {
      const reply = await get(test, path);
      expect(reply.status, path).toBe(422);
      expect(typeof reply.body.message).toBe('string');
      expect(Object.keys(reply.body.errors)).toEqual([param]);
      expect(reply.body.errors[param]).toEqual([expect.any(String)]);
    }
  });

  it('ignores unknown query parameters', async () => {
    const reply = await get(test, '/api/v1/customers?colour=blue&per_page=3');
    expect(reply.status).toBe(200);
    expect(ids(reply.body.data)).toEqual(ids(books.customers.slice(0, 3)));
  });
});
