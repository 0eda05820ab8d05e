// Exact at any size: invoices, payments and quotes past 20 significant digits (made on the sandbox's live
// books through its API and admin interface), asked about through a real MCP client of the built server.
// Every figure is checked against the test's own ground truth: the sandbox's raw HTTP API summed with the
// tests' own BigInt decimal (test/support/exact.ts), never the server's code; and a mirror on Postgres,
// which sums them in SQL (numeric) where SQLite sums them from the rows, answers the same, figure for figure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, listAll, post, type Session, signIn } from '../contract/sandbox-http.js';
import { type Connected, connectClient, type ElicitAnswer } from '../e2e/support/clients.js';
import { keyEnv } from '../e2e/support/server.js';
import { Exact } from '../support/exact.js';
import { ENGINES, postgresDatabase } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BigBooks, makeBigBooks } from './big-amounts.js';
import {
  ageBand,
  answerOf,
  daysFrom,
  invoiced,
  issuedIn,
  linesOf,
  plus,
  type RawBooks,
  readRawBooks,
  receivable,
  same,
  tally,
} from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';

const TODAY = '2027-03-15';
const ACCEPT: ElicitAnswer = { action: 'accept', content: { confirm: true } };

let sb: TestSandbox;
let live: Session;
let big: BigBooks;
let books: RawBooks;
let mcp: Connected;
/** The product on all three big invoices. */
let onEvery: Json;

const ask = (name: string, args: Record<string, unknown> = {}, client: Connected = mcp): Promise<Json> =>
  answerOf(client.client, name, args);

const textOfCall = async (name: string, args: Record<string, unknown>): Promise<string> =>
  (await mcp.client.callTool({ name, arguments: args })).content.map((c) => c.text ?? '').join('\n');

beforeAll(async () => {
  sb = await startTestSandbox({ today: TODAY, rateLimit: 1_000_000 });
  live = await signIn(sb.baseUrl, sb.keys.live);
  const products = (await listAll(live, '/api/v1/products')).filter((p: Json) => p.is_active).slice(0, 2) as [Json, Json];
  big = await makeBigBooks(sb, live, TODAY, products);
  onEvery = products[0];
  books = await readRawBooks(sb.baseUrl, sb.keys.live);
  const env = { ...keyEnv(sb, sb.keys.live), SVC_POLL_SECONDS: '5' };
  mcp = await connectClient(
    'v2',
    { linked: await startInProcessServer(env, { mirror: 'memory', confirmWrites: true }) },
    { elicit: () => ACCEPT },
  );
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

const byCurrency = (rows: Json[]): Map<string, Json> => new Map(rows.map((r) => [r.currency, r]));

/** Today's sales by product, asked again until the lines (fetched in the background, newest first) are all in. */
async function salesByProductOnceWhole(client: Connected): Promise<Json> {
  let products = await ask('report_sales', { from: TODAY, to: TODAY, group_by: 'product' }, client);
  for (let i = 0; i < 100 && products.lines.with_lines < products.lines.invoices; i++) {
    await new Promise((r) => setTimeout(r, 100));
    products = await ask('report_sales', { from: TODAY, to: TODAY, group_by: 'product' }, client);
  }
  return products;
}
const ours = (): Json[] => Object.values(big.invoices);

/** An answer without the moment it was made (two servers read at different moments). */
const figures = (answer: Json): Json => JSON.parse(JSON.stringify(answer, (key, value) => (key === 'as_of' ? undefined : value)));

// On Postgres when the run started it (npm run test:all).
describe.each(ENGINES.filter((engine) => engine === 'postgres'))('a mirror on %s', () => {
  it('answers every report as the mirror in memory does, figure for figure', async () => {
    const url = await postgresDatabase('exact_any_size');
    const env = { ...keyEnv(sb, sb.keys.live), SVC_POLL_SECONDS: '5' };
    const postgres = await connectClient('v2', { linked: await startInProcessServer(env, { mirror: url }) });
    try {
      const numbers = [...ours().map((i) => i.number), ...big.quotes.map((q) => q.number)];
      const questions: [string, Record<string, unknown>][] = [
        ['report_received', { from: TODAY, to: TODAY, group_by: 'method' }],
        ['report_owed', { top: 100 }],
        ['report_owed', { customer_id: big.customer.id, over_days: 30 }],
        ['report_sales', { from: '2026-01-01', to: TODAY, group_by: 'month' }],
        ['report_sales', { from: TODAY, to: TODAY, group_by: 'customer' }],
        ['report_sales', { from: plus(TODAY, -40), to: TODAY, group_by: 'customer', product_id: onEvery.id }],
        ['report_customer', { search: big.customer.code }],
        ['report_quotes', { expiring_days: 7 }],
        ['find_records', { search: numbers }],
        ['report_low_stock', {}],
      ];
      for (const [name, args] of questions) {
        const answer = figures(await ask(name, args, postgres));
        expect(answer, name).toEqual(figures(await ask(name, args)));
      }
      const products = figures(await salesByProductOnceWhole(postgres));
      expect(products.lines.with_lines).toBe(products.lines.invoices);
      expect(products).toEqual(figures(await salesByProductOnceWhole(mcp)));
    } finally {
      await postgres.close();
    }
  });
});

describe('amounts past 20 significant digits', () => {
  it('the sandbox takes them and works their lines exactly (the service line rule, half-up to 2 places)', () => {
    for (const inv of ours()) {
      let subtotal = Exact.of(0);
      let tax = Exact.of(0);
      for (const [n, l] of inv.items.entries()) {
        const lineTotal = Exact.of(l.quantity).times(l.unit_price).roundHalfUp(2);
        expect(l.line_total, inv.number).toBe(lineTotal.toFixed(2));
        expect(l.tax_amount, inv.number).toBe(lineTotal.times(big.lineRates.get(inv.id)![n]!).roundHalfUp(2).toFixed(2));
        subtotal = subtotal.plus(l.line_total);
        tax = tax.plus(l.tax_amount);
      }
      expect([inv.subtotal, inv.tax_total, inv.total]).toEqual([subtotal.toFixed(2), tax.toFixed(2), subtotal.plus(tax).toFixed(2)]);
    }
    expect(big.invoices.a.total.replace(/\D/g, '').replace(/^0+/, '').length).toBeGreaterThanOrEqual(22);
    expect(big.invoices.a.balance).toBe(Exact.of(big.invoices.a.total).minus('12345678901234567890.13').toFixed(2));
  });

  it('report_received: two payments of one method add up to the cent', async () => {
    const a = await ask('report_received', { from: TODAY, to: TODAY, group_by: 'method' });
    const method = (key: string): Json => a.groups.find((g: Json) => g.key === key && g.currency === 'NZD');
    expect(method('bank_transfer')).toMatchObject({ count: 2, amount: '12345678901234567890.13' });
    expect(method('cash')).toMatchObject({ count: 1, amount: '5555555555555555555.55' });
    const truth = tally(
      books.payments.filter((p) => p.payment_date === TODAY),
      (p) => p.currency,
      (p) => p.amount,
    );
    for (const t of a.totals) {
      expect(same(t.amount, truth.get(t.currency)!.sum), t.currency).toBe(true);
      expect(same(t.allocated, truth.get(t.currency)!.sum), t.currency).toBe(true);
    }
  });

  it('report_owed: what is owed, aged, past due and by customer', async () => {
    const a = await ask('report_owed', { top: 100 });
    expect(a.today).toBe(TODAY);
    const owing = books.invoices.filter(receivable);
    const whole = tally(
      owing,
      (i) => i.currency,
      (i) => i.balance,
    );
    const bands = tally(
      owing,
      (i) => `${i.currency} ${ageBand(daysFrom(i.due_date, TODAY))}`,
      (i) => i.balance,
    );
    const pastDue = tally(
      owing.filter((i) => i.due_date < TODAY),
      (i) => i.currency,
      (i) => i.balance,
    );
    const got = byCurrency(a.currencies);
    expect([...got.keys()].sort()).toEqual([...whole.keys()].sort());
    for (const [currency, t] of whole) {
      const c = got.get(currency);
      expect([c.count, same(c.balance, t.sum)], currency).toEqual([t.count, true]);
      expect(same(c.past_due.balance, pastDue.get(currency)?.sum ?? 0), currency).toBe(true);
      for (const band of ['not_due', '1_30', '31_60', '61_90', 'over_90'])
        expect(same(c.aged[band].balance, bands.get(`${currency} ${band}`)?.sum ?? 0), `${currency} ${band}`).toBe(true);
    }
    const perCustomer = tally(
      owing,
      (i) => `${i.customer.id} ${i.currency}`,
      (i) => i.balance,
    );
    for (const c of a.customers) expect(same(c.balance, perCustomer.get(`${c.customer_id} ${c.currency}`)!.sum)).toBe(true);
    expect(a.customers.find((c: Json) => c.currency === 'NZD').customer_id).toBe(big.customer.id);
  });

  it('report_sales: totals, by customer, and by product (from the lines)', async () => {
    const today = await ask('report_sales', { from: TODAY, to: TODAY });
    const issuedToday = books.invoices.filter((i) => invoiced(i) && i.issue_date === TODAY);
    expect(issuedToday.map((i) => i.id).sort()).toEqual([big.invoices.a.id, big.invoices.b.id].sort());
    const [nzd] = today.totals;
    const sum = (field: string): Exact => issuedToday.reduce((s, i) => s.plus(i[field]), Exact.of(0));
    expect([nzd.count, same(nzd.subtotal, sum('subtotal')), same(nzd.tax, sum('tax_total')), same(nzd.total, sum('total'))]).toEqual([
      2,
      true,
      true,
      true,
    ]);

    const range = { from: plus(TODAY, -40), to: TODAY };
    const byCustomer = await ask('report_sales', { ...range, group_by: 'customer', limit: 400 });
    const truth = tally(
      books.invoices.filter((i) => invoiced(i) && issuedIn(i, range)),
      (i) => `${i.customer.id} ${i.currency}`,
      (i) => i.total,
    );
    expect(byCustomer.groups.length + byCustomer.groups_left_out).toBe(truth.size);
    for (const g of byCustomer.groups) expect(same(g.total, truth.get(`${g.key} ${g.currency}`)!.sum), `${g.key}`).toBe(true);
    // Ranked within each currency: the big customer leads its own.
    const bigCurrency = issuedToday[0]!.currency;
    expect(byCustomer.groups.find((g: Json) => g.currency === bigCurrency).key).toBe(big.customer.id);

    const products = await salesByProductOnceWhole(mcp);
    expect(products.lines).toEqual({ with_lines: 2, invoices: 2 });
    const lines = await linesOf(live, [big.invoices.a.id, big.invoices.b.id]);
    const flat = [...lines.values()].flat();
    const totals = tally(
      flat,
      (l) => `${l.product_id}`,
      (l) => Exact.of(l.line_total).plus(l.tax_amount).toFixed(2),
    );
    const quantities = tally(
      flat,
      (l) => `${l.product_id}`,
      (l) => l.quantity,
    );
    expect(products.groups.map((g: Json) => `${g.key}`).sort()).toEqual([...totals.keys()].sort());
    for (const g of products.groups) {
      expect(same(g.total, totals.get(`${g.key}`)!.sum), `${g.key}`).toBe(true);
      expect(same(g.quantity, quantities.get(`${g.key}`)!.sum), `${g.key}`).toBe(true);
    }
  }, 60_000);

  it("report_sales of one product by customer: each buyer's units and revenue, past 20 digits", async () => {
    const range = { from: plus(TODAY, -40), to: TODAY };
    const a = await ask('report_sales', { ...range, group_by: 'customer', product_id: onEvery.id, limit: 400 });
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
    expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    const lines = await linesOf(
      live,
      rows.map((i) => i.id),
    );
    const own = rows.flatMap((i) =>
      lines
        .get(i.id)!
        .filter((l) => l.product_id === onEvery.id)
        .map((l) => ({ ...l, buyer: `${i.customer.id} ${i.currency}` })),
    );
    const quantities = tally(
      own,
      (l) => l.buyer,
      (l) => l.quantity,
    );
    const totals = tally(
      own,
      (l) => l.buyer,
      (l) => Exact.of(l.line_total).plus(l.tax_amount).toString(),
    );
    expect(a.groups.map((g: Json) => `${g.key} ${g.currency}`).sort()).toEqual([...quantities.keys()].sort());
    for (const g of a.groups) {
      expect(same(g.quantity, quantities.get(`${g.key} ${g.currency}`)!.sum), `${g.key} quantity`).toBe(true);
      expect(same(g.total, totals.get(`${g.key} ${g.currency}`)!.sum), `${g.key} total`).toBe(true);
    }
    const mine = a.groups.find((g: Json) => g.key === big.customer.id);
    expect(mine.quantity).toBe('4.5');
    expect(Exact.of(mine.total).gt('100000000000000000000')).toBe(true);
  });

  it('report_customer: balances, past due, unpaid invoices and open quotes', async () => {
    const a = await ask('report_customer', { search: big.customer.code });
    expect(a.customer.id).toBe(big.customer.id);
    const own = books.invoices.filter((i) => i.customer.id === big.customer.id && receivable(i));
    const sum = (rows: Json[]): Exact => rows.reduce((s, i) => s.plus(i.balance), Exact.of(0));
    const [nzd] = a.balances;
    expect([a.balances.length, same(nzd.balance, sum(own)), same(nzd.past_due, sum(own.filter((i) => i.due_date < TODAY)))]).toEqual([
      1,
      true,
      true,
    ]);
    expect(a.unpaid.map((i: Json) => [i.id, i.balance]).sort()).toEqual(own.map((i) => [i.id, i.balance]).sort());
    expect(a.open_quotes.map((q: Json) => [q.id, q.total]).sort()).toEqual(big.quotes.map((q) => [q.id, q.total]).sort());
  });

  it('report_quotes: the value of open quotes, and of those expiring within 7 days', async () => {
    const a = await ask('report_quotes', { expiring_days: 7 });
    const open = books.quotes.filter((q) => ['draft', 'sent', 'viewed'].includes(q.status));
    const expiring = open.filter((q) => q.valid_until >= TODAY && q.valid_until <= plus(TODAY, 7));
    const value = (rows: Json[]): Exact => rows.reduce((s, q) => s.plus(q.total), Exact.of(0));
    const figure = (rows: Json[]): Json => rows.reduce((s, f) => s.plus(f.value), Exact.of(0));
    expect(same(figure(a.open), value(open))).toBe(true);
    expect(same(figure(a.expiring), value(expiring))).toBe(true);
    expect(a.expiring.reduce((n: number, f: Json) => n + f.count, 0)).toBe(expiring.length);
    expect(value(expiring).gt('98765432109876543210.98')).toBe(true);
  });

  it('find_records, list_invoices and get_invoice carry the amounts untouched', async () => {
    const numbers = [...ours().map((i) => i.number), ...big.quotes.map((q) => q.number)];
    const found = await ask('find_records', { search: numbers });
    const listed = found.results.flatMap((r: Json) => r.invoices.map((i: Json) => [i.id, i.total, i.balance]));
    expect(listed).toEqual(ours().map((i) => [i.id, i.total, i.balance]));
    expect(found.results.flatMap((r: Json) => r.quotes.map((q: Json) => q.total))).toEqual(big.quotes.map((q) => q.total));
    const page = await ask('list_invoices', { customer_id: big.customer.id });
    expect(page.data.map((i: Json) => [i.id, i.subtotal, i.tax_total, i.total, i.balance]).sort()).toEqual(
      ours()
        .map((i) => [i.id, i.subtotal, i.tax_total, i.total, i.balance])
        .sort(),
    );
    const text = await textOfCall('list_invoices', { customer_id: big.customer.id });
    for (const inv of ours()) expect(text).toContain(`balance NZD ${inv.balance}`);
    const one = await ask('get_invoice', { id: big.invoices.b.id });
    expect(one.items.map((l: Json) => l.line_total)).toEqual(big.invoices.b.items.map((l: Json) => l.line_total));
    expect(await textOfCall('get_invoice', { id: big.invoices.b.id })).toContain(`total NZD ${big.invoices.b.total}`);
  });

  it('the draft to confirm sums its lines exactly, and matches the draft the service makes', async () => {
    const product = books.products.find((p) => p.is_active)!;
    const items = [
      { description: 'Very large line', quantity: '3.000001', unit_price: '12345678901234567890.1235' },
      { product_id: product.id, quantity: '2' },
    ];
    const result = await mcp.client.callTool({ name: 'create_draft_invoice', arguments: { customer_id: big.customer.id, items } });
    expect(result.isError).toBeFalsy();
    const expected = Exact.of('3.000001')
      .times('12345678901234567890.1235')
      .roundHalfUp(2)
      .plus(Exact.of(product.default_price).times(2).roundHalfUp(2));
    expect(mcp.elicitations.at(-1)?.message).toContain(`Subtotal ${expected.toFixed(2)} before tax`);
    const draft = result.structuredContent.invoice ?? result.structuredContent;
    expect(draft.subtotal).toBe(expected.toFixed(2));
  });
});

describe('amounts of 18 digits whose sums pass 64 bits (the second business)', () => {
  // Each amount fits SQLite's whole units; ten of them do not, so every sum is made from the rows.
  const AMOUNT = '9999999999999999.99';
  let other: Connected;
  let raw: RawBooks;
  let made: Json[];

  beforeAll(async () => {
    const key = await sb.makeKey('live', [...ALL_SCOPES], 2);
    const session = await signIn(sb.baseUrl, key);
    const product = (await listAll(session, '/api/v1/products')).find((p: Json) => p.is_active);
    const customer = (await post(session, '/api/v1/customers', { name: 'Sixty Four Bits Pty' })).body.data;
    made = [];
    for (let i = 0; i < 10; i++) {
      const items = [{ product_id: product.id, quantity: '1', unit_price: AMOUNT, tax_category_id: 4 }];
      const invoice = (await post(session, '/api/v1/invoices', { customer_id: customer.id, items })).body.data;
      expect((await sb.admin('POST', `/invoices/${invoice.id}/send?business_id=2`)).status).toBe(200);
      made.push(invoice);
    }
    raw = await readRawBooks(sb.baseUrl, key);
    other = await connectClient('v2', {
      linked: await startInProcessServer({ ...keyEnv(sb, key), SVC_POLL_SECONDS: '5' }, { mirror: 'memory' }),
    });
  }, 60_000);
  afterAll(() => other?.close());

  it('report_sales and report_owed sum them exactly', async () => {
    const tenTimes = Exact.of(AMOUNT).times(10).toFixed(2);
    expect(made.map((i) => [i.total, i.items[0].line_total])).toEqual(Array(10).fill([AMOUNT, AMOUNT]));
    const sales = await ask('report_sales', { from: TODAY, to: TODAY }, other);
    expect(sales.totals).toEqual([{ currency: 'AUD', count: 10, subtotal: tenTimes, tax: '0.00', total: tenTimes }]);
    const products = await salesByProductOnceWhole(other);
    expect(products.lines).toEqual({ with_lines: 10, invoices: 10 });
    expect(products.groups.map((g: Json) => [g.total, g.quantity])).toEqual([[tenTimes, '10']]);
    const owed = await ask('report_owed', {}, other);
    const truth = tally(
      raw.invoices.filter(receivable),
      (i) => i.currency,
      (i) => i.balance,
    );
    expect(owed.currencies.map((c: Json) => [c.currency, c.count, same(c.balance, truth.get(c.currency)!.sum)])).toEqual(
      [...truth].map(([currency, t]) => [currency, t.count, true]),
    );
    expect(Exact.of(owed.currencies[0].aged.not_due.balance).comparedTo(tenTimes)).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
