// Records of amounts past 20 significant digits, made on a sandbox's live books as a business would: a customer
// and invoices through the API, then sent, paid and quoted through the admin interface (the business's console).
import { get, type Json, post, type Session } from '../contract/sandbox-http.js';
import type { TestSandbox } from '../support/sandbox.js';

export interface BigBooks {
  customer: Json;
  /** Issued today: A (two products and a line of none), B (two products); C issued 40 days ago, 10 days past due. */
  invoices: { a: Json; b: Json; c: Json };
  payments: Json[];
  quotes: Json[];
  /** The tax rate of each line of each invoice, in order (the service does not show a line's category). */
  lineRates: Map<number, string[]>;
}

/** The main business's tax categories (see the service contract): 15% and zero rated. */
const RATES: Record<number, string> = { 1: '0.15', 2: '0.00' };

const plusDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function created(reply: Promise<{ status: number; body: Json }>, what: string): Promise<Json> {
  const r = await reply;
  if (r.status !== 201 && r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** `products`: two active products of the business, whose prices the lines override. */
export async function makeBigBooks(sb: TestSandbox, live: Session, today: string, products: [Json, Json]): Promise<BigBooks> {
  const [p1, p2] = products;
  const customer = await created(
    post(live, '/api/v1/customers', { name: 'Exact Holdings Unlimited', email: 'exact@example.com' }),
    'customer',
  );
  const lineRates = new Map<number, string[]>();
  const invoice = async (items: Json[], dates: Json = {}): Promise<Json> => {
    const made = await created(post(live, '/api/v1/invoices', { customer_id: customer.id, items, ...dates }), 'invoice');
    lineRates.set(
      made.id,
      items.map((l) => RATES[l.tax_category_id] as string),
    );
    await created(sb.admin('POST', `/invoices/${made.id}/send`), 'send');
    return (await get(live, `/api/v1/invoices/${made.id}`)).body.data;
  };
  const a = await invoice([
    { product_id: p1.id, quantity: '3', unit_price: '12345678901234567890.1234', tax_category_id: 1 },
    { product_id: p2.id, quantity: '1.5', unit_price: '7777777777777777777777.7777', tax_category_id: 1 },
    { description: 'Rounding check', quantity: '1', unit_price: '0.0150', tax_category_id: 2 },
  ]);
  const b = await invoice([
    { product_id: p1.id, quantity: '0.5', unit_price: '99999999999999999999.9999', tax_category_id: 2 },
    { product_id: p2.id, quantity: '2.000001', unit_price: '1000000000000000000000.0001', tax_category_id: 1 },
  ]);
  const c = await invoice([{ product_id: p1.id, quantity: '1', unit_price: '55555555555555555555.5555', tax_category_id: 1 }], {
    issue_date: plusDays(today, -40),
    due_date: plusDays(today, -10),
  });
  const pay = (invoiceId: number, amount: string, method: string): Promise<Json> =>
    created(
      sb.admin('POST', '/payments', { customer_id: customer.id, amount, method, allocations: [{ invoice_id: invoiceId, amount }] }),
      'payment',
    );
  // Two payments of one method whose sum has 22 significant digits (decimal.js at 20 digits lost the cent).
  const payments = [
    await pay(a.id, '12345678901234567890.12', 'bank_transfer'),
    await pay(a.id, '0.01', 'bank_transfer'),
    await pay(c.id, '5555555555555555555.55', 'cash'),
  ];
  const quote = (total: string): Promise<Json> =>
    created(sb.admin('POST', '/quotes', { customer_id: customer.id, total, valid_until: plusDays(today, 5) }), 'quote');
  const quotes = [await quote('98765432109876543210.98'), await quote('0.02')];
  const fresh = async (id: number): Promise<Json> => (await get(live, `/api/v1/invoices/${id}`)).body.data;
  return { customer, invoices: { a: await fresh(a.id), b: await fresh(b.id), c: await fresh(c.id) }, payments, quotes, lineRates };
}
