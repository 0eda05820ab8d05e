// Everyday questions about the books, each asked through a real MCP client of the built server (on a
// standalone sandbox, live key, mirror in memory, and at scale 1 on Postgres too) in one call, or two where a
// search must come first.
// Every figure is checked against a ground truth this test works out from the sandbox's raw HTTP API
// with its own decimal arithmetic (ground-truth.ts), at the sample books' scale 1 and scale 4. Lists ask
// for at most 400 groups at scale 1 (all fit) and 150 at scale 4, where this quarter's products and the
// last 90 days' payers run past the limit, so the groups left out are checked too.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { type Connected, connectClient } from '../e2e/support/clients.js';
import { stdioCommand } from '../e2e/support/server.js';
import { Exact } from '../support/exact.js';
import { mirrorSetting } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import {
  ageBand,
  daysFrom,
  expectProductSales,
  invoiced,
  issuedIn,
  lastMonth,
  plus,
  productSales,
  type RawBooks,
  readRawBooks,
  receivable,
  same,
  tally,
  thisQuarter,
} from './ground-truth.js';

// A pinned business day, so that no midnight moves a status between the ground truth and the answer.
const TODAY = '2027-03-15';

describe.each([
  [1, 400, 'sqlite'],
  [1, 400, 'postgres'],
  [4, 150, 'sqlite'],
] as const)('at --scale %i (up to %i groups), mirror on %s', (scale, limit, engine) => {
  let sb: TestSandbox;
  let books: RawBooks;
  let mcp: Connected;
  let calls = 0;

  async function ask(name: string, args: Record<string, unknown> = {}): Promise<Json> {
    calls++;
    const result = await mcp.client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} refused: ${result.content.map((c) => c.text).join('\n')}`);
    return result.structuredContent as Json;
  }

  beforeAll(async () => {
    sb = await startTestSandbox({ scale, today: TODAY, rateLimit: 1_000_000 });
    books = await readRawBooks(sb.baseUrl, sb.keys.live);
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '5' };
    const mirror = await mirrorSetting(engine, `everyday_${scale}`);
    mcp = await connectClient('v2', { stdio: stdioCommand(['--mirror', mirror], env) }, { probe: 'in-place' });
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    await sb?.close();
  });

  const byCurrency = (rows: Json[]): Map<string, Json> => new Map(rows.map((r) => [r.currency, r]));

  it('how much are we owed, per currency? (one call)', async () => {
    const before = calls;
    const a = await ask('report_owed');
    expect(calls - before).toBe(1);
    expect(a.today).toBe(TODAY);
    const truth = tally(
      books.invoices.filter(receivable),
      (i) => i.currency,
      (i) => i.balance,
    );
    const got = byCurrency(a.currencies);
    expect([...got.keys()].sort()).toEqual([...truth.keys()].sort());
    for (const [currency, t] of truth) {
      expect(got.get(currency).count, currency).toBe(t.count);
      expect(same(got.get(currency).balance, t.sum), `${currency} ${got.get(currency).balance} vs ${t.sum}`).toBe(true);
    }
  });

  it('how old is what we are owed? (aged by days past due, as of today)', async () => {
    const a = await ask('report_owed');
    const truth = tally(
      books.invoices.filter(receivable),
      (i) => `${i.currency} ${ageBand(daysFrom(i.due_date, TODAY))}`,
      (i) => i.balance,
    );
    for (const c of a.currencies) {
      for (const band of ['not_due', '1_30', '31_60', '61_90', 'over_90']) {
        const t = truth.get(`${c.currency} ${band}`) ?? { count: 0, sum: Exact.of(0) };
        expect(c.aged[band].count, `${c.currency} ${band}`).toBe(t.count);
        expect(same(c.aged[band].balance, t.sum), `${c.currency} ${band}`).toBe(true);
      }
    }
    // The sample books hold unpaid invoices in every band of the base currency.
    for (const band of ['not_due', '1_30', '31_60', '61_90', 'over_90'])
      expect(truth.get(`NZD ${band}`)?.count ?? 0, band).toBeGreaterThan(0);
  });

  it('who owes us the most? (top 5 in NZD, ties to the lower id)', async () => {
    const a = await ask('report_owed', { top: 5 });
    const truth = [
      ...tally(
        books.invoices.filter((i) => receivable(i) && i.currency === 'NZD'),
        (i) => i.customer.id,
        (i) => i.balance,
      ),
    ]
      .sort(([idA, a1], [idB, b1]) => b1.sum.comparedTo(a1.sum) || idA - idB)
      .slice(0, 5);
    const got = a.customers.filter((c: Json) => c.currency === 'NZD');
    expect(got.map((c: Json) => c.customer_id)).toEqual(truth.map(([id]) => id));
    got.forEach((c: Json, n: number) => {
      expect(same(c.balance, truth[n]![1].sum)).toBe(true);
    });
  });

  it('what is more than 60 days past due?', async () => {
    const a = await ask('report_owed', { over_days: 60 });
    const truth = tally(
      books.invoices.filter((i) => receivable(i) && daysFrom(i.due_date, TODAY) > 60),
      (i) => i.currency,
      (i) => i.balance,
    );
    const got = byCurrency(a.currencies);
    expect([...got.keys()].sort()).toEqual([...truth.keys()].sort());
    for (const [currency, t] of truth) {
      expect(got.get(currency).count).toBe(t.count);
      expect(same(got.get(currency).balance, t.sum)).toBe(true);
    }
  });

  it('which overdue invoices owe 2,000 or more? every one, a page at a time (one call a page)', async () => {
    const big = books.invoices
      .filter((i) => receivable(i) && daysFrom(i.due_date, TODAY) > 0 && Exact.of(i.balance).greaterThan('1999.99'))
      .sort((x, y) => (x.due_date < y.due_date ? -1 : x.due_date > y.due_date ? 1 : x.id - y.id));
    expect(big.length).toBeGreaterThan(10);
    const pages: Json[][] = [];
    for (let offset = 0; offset < big.length; offset += 10) {
      const a = await ask('report_owed', { over_days: 0, min_balance: '2000', limit: 10, offset });
      pages.push(a.invoices);
      expect(a.invoices_left_out).toBe(Math.max(0, big.length - offset - 10));
      if (offset === 0) {
        const truth = tally(
          big,
          (i) => i.currency,
          (i) => i.balance,
        );
        for (const c of a.currencies) expect(same(c.balance, truth.get(c.currency)!.sum), c.currency).toBe(true);
      }
    }
    expect(pages.flat().map((i) => i.id)).toEqual(big.map((i) => i.id));
    for (const [n, i] of pages.flat().entries()) expect(same(i.balance, big[n]!.balance)).toBe(true);
    // Without a minimum the store sums, and pages the same way.
    const owing = books.invoices
      .filter(receivable)
      .sort((x, y) => (x.due_date < y.due_date ? -1 : x.due_date > y.due_date ? 1 : x.id - y.id));
    const second = await ask('report_owed', { limit: 7, offset: 7 });
    expect(second.invoices.map((i: Json) => i.id)).toEqual(owing.slice(7, 14).map((i) => i.id));
    expect(second.invoices_left_out).toBe(owing.length - 14);
  });

  it('what did we invoice last month, with the tax?', async () => {
    const a = await ask('report_sales', { range: 'last_month' });
    const month = lastMonth(TODAY);
    expect([a.from, a.to]).toEqual([month.from, month.to]);
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, month));
    const got = byCurrency(a.totals);
    for (const [currency, t] of tally(
      rows,
      (i) => i.currency,
      (i) => i.total,
    )) {
      const own = rows.filter((i) => i.currency === currency);
      expect(got.get(currency).count, currency).toBe(t.count);
      expect(same(got.get(currency).total, t.sum)).toBe(true);
      expect(
        same(
          got.get(currency).subtotal,
          own.reduce((s, i) => s.plus(i.subtotal), Exact.of(0)),
        ),
      ).toBe(true);
      expect(
        same(
          got.get(currency).tax,
          own.reduce((s, i) => s.plus(i.tax_total), Exact.of(0)),
        ),
      ).toBe(true);
    }
    expect(rows.length).toBeGreaterThan(0);
  });

  it('sales this quarter, month by month', async () => {
    const a = await ask('report_sales', { range: 'this_quarter', group_by: 'month' });
    const truth = tally(
      books.invoices.filter((i) => invoiced(i) && issuedIn(i, thisQuarter(TODAY))),
      (i) => `${i.issue_date.slice(0, 7)} ${i.currency}`,
      (i) => i.total,
    );
    expect(a.groups.length).toBe(truth.size);
    for (const g of a.groups) {
      const t = truth.get(`${g.key} ${g.currency}`);
      expect(t, `${g.key} ${g.currency}`).toBeDefined();
      expect(g.count).toBe(t!.count);
      expect(same(g.total, t!.sum)).toBe(true);
    }
  });

  it('till sales in the last 30 days, against the rest', async () => {
    const a = await ask('report_sales', { days: 30, group_by: 'channel' });
    const range = { from: plus(TODAY, -29), to: TODAY };
    const truth = tally(
      books.invoices.filter((i) => invoiced(i) && issuedIn(i, range)),
      (i) => `${i.sales_channel} ${i.currency}`,
      (i) => i.total,
    );
    expect(a.groups.length).toBe(truth.size);
    for (const g of a.groups) {
      const t = truth.get(`${g.key} ${g.currency}`);
      expect(g.count).toBe(t!.count);
      expect(same(g.total, t!.sum)).toBe(true);
    }
    expect([...truth.keys()].some((k) => k.startsWith('pos '))).toBe(true);
  });

  it('who did we invoice most last month? (by customer, ranked within each currency, with first and last dates)', async () => {
    const a = await ask('report_sales', { range: 'last_month', group_by: 'customer', limit });
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, lastMonth(TODAY)));
    const key = (i: Json): string => `${i.customer.id} ${i.currency}`;
    const truth = tally(rows, key, (i) => i.total);
    expect(a.groups.length + a.groups_left_out).toBe(truth.size);
    for (const g of a.groups) {
      const own = rows.filter((i) => key(i) === `${g.key} ${g.currency}`);
      const t = truth.get(`${g.key} ${g.currency}`);
      expect(g.count).toBe(t!.count);
      expect(same(g.total, t!.sum)).toBe(true);
      const dates = own.map((i) => i.issue_date).sort();
      expect([g.first_issued, g.last_issued]).toEqual([dates[0], dates.at(-1)]);
    }
    // The first group of each currency is that currency's largest; currencies are never ranked together.
    for (const currency of new Set(rows.map((i) => i.currency))) {
      const own = [...truth.entries()].filter(([k]) => k.endsWith(` ${currency}`)).map(([, t]) => t.sum);
      const top = own.reduce((m, t) => (t.greaterThan(m) ? t : m), Exact.of(0));
      expect(same(a.groups.find((g: Json) => g.currency === currency).total, top), currency).toBe(true);
    }
  });

  it('our top products this quarter, from the invoice lines, whole in one call', async () => {
    const range = thisQuarter(TODAY);
    // Lines the mirror lacks are read while the answer waits (they fit: the key's limit is lifted here).
    const before = calls;
    const a = await ask('report_sales', { range: 'this_quarter', group_by: 'product', limit });
    expect(calls - before).toBe(1);
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
    expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    expect(a.lines_pending).toBeUndefined();
    await expectProductSales(a, books.session, rows);
  });

  it("what did our most frequent customer this year buy, by product? (one call, by the customer's id)", async () => {
    const ofYear = books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: `${TODAY.slice(0, 4)}-01-01`, to: TODAY }));
    const counts = tally(
      ofYear,
      (i) => i.customer.id as number,
      (i) => i.total,
    );
    const [customerId] = [...counts.entries()].sort((a, b) => b[1].count - a[1].count || a[0] - b[0])[0]!;
    const before = calls;
    const a = await ask('report_sales', { range: 'this_year', group_by: 'product', customer_id: customerId, limit });
    expect(calls - before).toBe(1);
    const rows = ofYear.filter((i) => i.customer.id === customerId);
    expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    await expectProductSales(a, books.session, rows);
  });

  it('last quarter in our most used currency, month by month (one call)', async () => {
    const quarter = books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: '2026-10-01', to: '2026-12-31' }));
    const perCurrency = tally(
      quarter,
      (i) => i.currency as string,
      (i) => i.total,
    );
    const [currency] = [...perCurrency.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))[0]!;
    const a = await ask('report_sales', { range: 'last_quarter', group_by: 'month', currency });
    const truth = tally(
      quarter.filter((i) => i.currency === currency),
      (i) => (i.issue_date as string).slice(0, 7),
      (i) => i.total,
    );
    expect(a.totals.map((t: Json) => t.currency)).toEqual([currency]);
    expect(a.groups.map((g: Json) => g.key)).toEqual([...truth.keys()].sort());
    for (const g of a.groups) {
      expect(g.count, g.key).toBe(truth.get(g.key)!.count);
      expect(same(g.total, truth.get(g.key)!.sum), g.key).toBe(true);
    }
  });

  it('our three best products this quarter by subtotal, ranked within each currency (one call)', async () => {
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, thisQuarter(TODAY)));
    const a = await ask('report_sales', { range: 'this_quarter', group_by: 'product', rank_by: 'subtotal', limit: 3 });
    const { subtotals } = await productSales(books.session, rows);
    for (const currency of new Set(rows.map((i) => i.currency as string))) {
      const best = [...subtotals.entries()]
        .filter(([key]) => key.endsWith(` ${currency}`))
        .map(([, t]) => t.sum)
        .sort((x, y) => (y.greaterThan(x) ? 1 : x.greaterThan(y) ? -1 : 0))
        .slice(0, 3);
      const shown = a.groups.filter((g: Json) => g.currency === currency).map((g: Json) => g.subtotal);
      expect(shown.length, currency).toBe(best.length);
      for (const [n, subtotal] of shown.entries()) expect(same(subtotal, best[n]!), `${currency} #${n + 1}`).toBe(true);
    }
  });

  it('cash received last month, by method', async () => {
    const a = await ask('report_received', { range: 'last_month', group_by: 'method' });
    const month = lastMonth(TODAY);
    const rows = books.payments.filter((p) => p.payment_date >= month.from && p.payment_date <= month.to);
    const truth = tally(
      rows,
      (p) => `${p.method} ${p.currency}`,
      (p) => p.amount,
    );
    expect(a.groups.length).toBe(truth.size);
    for (const g of a.groups) {
      const t = truth.get(`${g.key} ${g.currency}`);
      expect(g.count).toBe(t!.count);
      expect(same(g.amount, t!.sum)).toBe(true);
    }
    expect(new Set(rows.map((p) => p.method)).size).toBeGreaterThanOrEqual(3);
  });

  it('who paid us in the last 90 days, and how much?', async () => {
    const a = await ask('report_received', { days: 90, group_by: 'customer', limit });
    const rows = books.payments.filter((p) => p.payment_date >= plus(TODAY, -89) && p.payment_date <= TODAY);
    const truth = tally(
      rows,
      (p) => `${p.customer.id} ${p.currency}`,
      (p) => p.amount,
    );
    expect(a.groups.length + a.groups_left_out).toBe(truth.size);
    for (const g of a.groups) expect(same(g.amount, truth.get(`${g.key} ${g.currency}`)!.sum)).toBe(true);
    const all = tally(
      rows,
      (p) => p.currency,
      (p) => p.amount,
    );
    for (const t of a.totals) expect(same(t.amount, all.get(t.currency)!.sum)).toBe(true);
  });

  function customerTruth(id: number): { balances: Map<string, Exact>; unpaid: number[]; openQuotes: number[] } {
    const own = books.invoices.filter((i) => i.customer.id === id && receivable(i));
    const balances = new Map(
      [
        ...tally(
          own,
          (i) => i.currency,
          (i) => i.balance,
        ),
      ].map(([c, t]) => [c, t.sum]),
    );
    const openQuotes = books.quotes.filter((q) => q.customer.id === id && ['draft', 'sent', 'viewed'].includes(q.status)).map((q) => q.id);
    return { balances, unpaid: own.map((i) => i.id).sort((x, y) => x - y), openQuotes: openQuotes.sort((x, y) => x - y) };
  }

  it('how does our biggest debtor stand? (found by customer code)', async () => {
    const owed = tally(
      books.invoices.filter((i) => receivable(i) && i.currency === 'NZD'),
      (i) => i.customer.id,
      (i) => i.balance,
    );
    const [id] = [...owed].sort(([a1, x], [b1, y]) => y.sum.comparedTo(x.sum) || a1 - b1)[0]!;
    const customer = books.customers.find((c) => c.id === id);
    const a = await ask('report_customer', { search: customer.code });
    expect(a.customer.id).toBe(id);
    const truth = customerTruth(id);
    expect(a.balances.length).toBe(truth.balances.size);
    for (const b of a.balances) expect(same(b.balance, truth.balances.get(b.currency)!)).toBe(true);
    expect(a.unpaid.map((i: Json) => i.id).sort((x: number, y: number) => x - y)).toEqual(truth.unpaid);
    expect(a.open_quotes.map((q: Json) => q.id).sort((x: number, y: number) => x - y)).toEqual(truth.openQuotes);
  });

  it('what does the customer with this email owe?', async () => {
    const customer = books.customers.find((c) => c.email && books.invoices.some((i) => i.customer.id === c.id && receivable(i)));
    const a = await ask('report_customer', { search: customer.email });
    expect(a.customer.id).toBe(customer.id);
    const truth = customerTruth(customer.id);
    for (const b of a.balances) expect(same(b.balance, truth.balances.get(b.currency)!)).toBe(true);
    expect(a.balances.length).toBe(truth.balances.size);
  });

  it('which quotes are open, and which expire within 7 days?', async () => {
    const a = await ask('report_quotes', { expiring_days: 7 });
    const open = books.quotes.filter((q) => ['draft', 'sent', 'viewed'].includes(q.status));
    const expiring = open.filter((q) => q.valid_until >= TODAY && q.valid_until <= plus(TODAY, 7));
    const sum = (rows: Json[]): Exact => rows.reduce((s, q) => s.plus(q.total), Exact.of(0));
    expect(a.open.reduce((n: number, f: Json) => n + f.count, 0)).toBe(open.length);
    expect(
      same(
        a.open.reduce((s: Exact, f: Json) => s.plus(f.value), Exact.of(0)),
        sum(open),
      ),
    ).toBe(true);
    expect(a.expiring.reduce((n: number, f: Json) => n + f.count, 0)).toBe(expiring.length);
    expect(
      same(
        a.expiring.reduce((s: Exact, f: Json) => s.plus(f.value), Exact.of(0)),
        sum(expiring),
      ),
    ).toBe(true);
    expect(expiring.length).toBeGreaterThan(0);
  });

  it("what is low at one branch, by that branch's own stock?", async () => {
    const branch = books.products.find((p) => p.stock?.branches?.length)!.stock.branches[1];
    const a = await ask('report_low_stock', { branch: branch.branch });
    const truth = books.products
      .filter((p) => p.is_active && p.track_stock && p.stock)
      .flatMap((p) =>
        p.stock.branches
          .filter((b: Json) => b.branch_id === branch.branch_id && !Exact.of(b.on_hand).greaterThan(p.stock.reorder_level))
          .map(() => p.id),
      )
      .sort((x: number, y: number) => x - y);
    expect(a.items.map((i: Json) => i.product_id).sort((x: number, y: number) => x - y)).toEqual(truth);
    for (const i of a.items) {
      const p = books.products.find((q) => q.id === i.product_id);
      const own = p.stock.branches.find((b: Json) => b.branch_id === branch.branch_id);
      expect(same(i.short_by, Exact.of(p.stock.reorder_level).minus(own.on_hand))).toBe(true);
    }
  });

  it('"draft an invoice for <customer> for 3 <product>": one search, one create', async () => {
    const customer = books.customers.find((c) => c.status === 'active')!;
    const product = books.products.find((p) => p.is_active && p.sku)!;
    const before = calls;
    const found = await ask('find_records', { search: [customer.name, product.name] });
    const customerId = found.results[0].customers.find((c: Json) => c.name === customer.name)?.id;
    const productId = found.results[1].products.find((p: Json) => p.name === product.name)?.id;
    expect([customerId, productId]).toEqual([customer.id, product.id]);
    const draft = await ask('create_draft_invoice', { customer_id: customerId, items: [{ product_id: productId, quantity: 3 }] });
    expect(calls - before).toBe(2);
    const expected = Exact.of(product.default_price).times(3).roundHalfUp(2);
    expect(same(draft.invoice?.subtotal ?? draft.subtotal, expected)).toBe(true);
  });
});
