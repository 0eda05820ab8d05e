// Thirty everyday questions about the books, as data: what a business owner asks, the tool calls that answer
// it, and the test's own ground truth to check every figure against (ground-truth.ts: the sandbox's raw HTTP
// API and the tests' own decimal). The test files ask them through real MCP clients, on warm and cold
// mirrors, at several scales (everyday-questions.test.ts, cold-questions.test.ts).

import { expect } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { Exact } from '../support/exact.js';
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
  receivable,
  same,
  type Tally,
  tally,
  thisQuarter,
} from './ground-truth.js';

/** A pinned business day, so that no midnight moves a status between the ground truth and the answer. */
export const TODAY = '2027-03-15';
const YEAR_START = `${TODAY.slice(0, 4)}-01-01`;
const LAST_QUARTER = { from: '2026-10-01', to: '2026-12-31' };
const LAST_YEAR = { from: '2026-01-01', to: '2026-12-31' };

export interface Asking {
  /** One tool call through the MCP client; a refusal fails the question with its text. */
  ask(name: string, args?: Record<string, unknown>): Promise<Json>;
  books: RawBooks;
  /** Groups to ask for: at scale 1 every group fits, beyond it some are left out (and checked as such). */
  limit: number;
}

export interface Question {
  title: string;
  /** The tool calls the question takes: one, or two where a search or a second page must come first. */
  calls?: 1 | 2;
  /** Makes a record in the service: asked last, where it changes nothing another question reads. */
  writes?: boolean;
  run(q: Asking): Promise<void>;
}

const byCurrency = (rows: Json[]): Map<string, Json> => new Map(rows.map((r) => [r.currency, r]));
const sumOf = (rows: Json[], field: string): Exact => rows.reduce((s, r) => s.plus(r[field]), Exact.of(0));
const byDue = (x: Json, y: Json): number => (x.due_date < y.due_date ? -1 : x.due_date > y.due_date ? 1 : x.id - y.id);
const ids = (rows: Json[]): number[] => rows.map((r) => r.id as number).sort((x, y) => x - y);
const OPEN_QUOTE = ['draft', 'sent', 'viewed'];

/** Per-currency totals of an answer (count, subtotal, tax, total) against these invoices. */
function expectTotals(totals: Json[], rows: Json[]): void {
  const truth = tally(
    rows,
    (i) => i.currency as string,
    (i) => i.total,
  );
  expect([...byCurrency(totals).keys()].sort()).toEqual([...truth.keys()].sort());
  for (const t of totals) {
    const own = rows.filter((i) => i.currency === t.currency);
    expect(t.count, t.currency).toBe(own.length);
    expect(same(t.total, truth.get(t.currency)!.sum), `${t.currency} total`).toBe(true);
    expect(same(t.subtotal, sumOf(own, 'subtotal')), `${t.currency} subtotal`).toBe(true);
    expect(same(t.tax, sumOf(own, 'tax_total')), `${t.currency} tax`).toBe(true);
  }
}

/** An answer's groups, keyed `<key> <currency>`, against a tally of the same records. */
function expectGroups(groups: Json[], truth: Map<string, Tally>, figure: 'total' | 'amount', leftOut = 0): void {
  expect(groups.length + leftOut).toBe(truth.size);
  for (const g of groups) {
    const t = truth.get(`${g.key} ${g.currency}`);
    expect(t, `${g.key} ${g.currency}`).toBeDefined();
    expect(g.count, `${g.key} ${g.currency}`).toBe(t!.count);
    expect(same(g[figure], t!.sum), `${g.key} ${g.currency}`).toBe(true);
  }
}

/** The customer of the most of these records (invoices, payments or quotes), ties to the lower id. */
function mostFrequent(rows: Json[]): number {
  const counts = new Map<number, number>();
  for (const r of rows) counts.set(r.customer.id, (counts.get(r.customer.id) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
}

/** The currency of the second most of these records (ties by code); the first when there is only one. */
function secondCurrency(rows: Json[]): string {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.currency, (counts.get(r.currency) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c);
  return ranked[1] ?? ranked[0]!;
}

function customerTruth(books: RawBooks, id: number): { balances: Map<string, Exact>; unpaid: number[]; openQuotes: number[] } {
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
  const openQuotes = books.quotes.filter((q) => q.customer.id === id && OPEN_QUOTE.includes(q.status));
  return { balances, unpaid: ids(own), openQuotes: ids(openQuotes) };
}

const owedQuestions: Question[] = [
  {
    title: 'how much are we owed, per currency?',
    async run({ ask, books }) {
      const a = await ask('report_owed');
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
    },
  },
  {
    title: 'how old is what we are owed? (aged by days past due, as of today)',
    async run({ ask, books }) {
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
    },
  },
  {
    title: 'who owes us the most? (top 5 in NZD, ties to the lower id)',
    async run({ ask, books }) {
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
    },
  },
  {
    title: 'what is more than 60 days past due?',
    async run({ ask, books }) {
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
    },
  },
  {
    title: 'which overdue invoices owe 2,000 or more? (the first ten, then the next ten)',
    calls: 2,
    async run({ ask, books }) {
      const big = books.invoices
        .filter((i) => receivable(i) && daysFrom(i.due_date, TODAY) > 0 && Exact.of(i.balance).greaterThan('1999.99'))
        .sort(byDue);
      expect(big.length).toBeGreaterThan(10);
      for (const offset of [0, 10]) {
        const a = await ask('report_owed', { over_days: 0, min_balance: '2000', limit: 10, offset });
        const page = big.slice(offset, offset + 10);
        expect(a.invoices.map((i: Json) => i.id)).toEqual(page.map((i) => i.id));
        for (const [n, i] of a.invoices.entries()) expect(same(i.balance, page[n]!.balance)).toBe(true);
        expect(a.invoices_left_out).toBe(Math.max(0, big.length - offset - 10));
        const truth = tally(
          big,
          (i) => i.currency,
          (i) => i.balance,
        );
        for (const c of a.currencies) expect(same(c.balance, truth.get(c.currency)!.sum), c.currency).toBe(true);
      }
    },
  },
  {
    title: 'what is owed to us in our second currency, invoice by invoice? (one currency only)',
    async run({ ask, books }) {
      const currency = secondCurrency(books.invoices.filter(receivable));
      const a = await ask('report_owed', { currency, limit: 200 });
      const own = books.invoices.filter((i) => receivable(i) && i.currency === currency);
      expect(a.currencies.map((c: Json) => c.currency)).toEqual([currency]);
      expect(ids(a.invoices)).toEqual(ids(own).slice(0, 200));
      expect(same(a.currencies[0].balance, sumOf(own, 'balance'))).toBe(true);
      expect(a.customers.every((c: Json) => c.currency === currency)).toBe(true);
    },
  },
  {
    title: 'which unpaid invoices come next after the seven oldest? (the second page)',
    async run({ ask, books }) {
      // Without a minimum the store sums, and pages the same way.
      const owing = books.invoices.filter(receivable).sort(byDue);
      const a = await ask('report_owed', { limit: 7, offset: 7 });
      expect(a.invoices.map((i: Json) => i.id)).toEqual(owing.slice(7, 14).map((i) => i.id));
      expect(a.invoices_left_out).toBe(owing.length - 14);
    },
  },
  {
    title: "which of our most frequent customer's invoices are more than 30 days overdue?",
    async run({ ask, books }) {
      const late = (i: Json): boolean => receivable(i) && daysFrom(i.due_date, TODAY) > 30;
      const id = mostFrequent(books.invoices.filter(late));
      const a = await ask('report_owed', { customer_id: id, over_days: 30, limit: 200 });
      const own = books.invoices.filter((i) => late(i) && i.customer.id === id);
      expect(ids(a.invoices)).toEqual(ids(own));
      for (const c of a.currencies)
        expect(
          same(
            c.balance,
            sumOf(
              own.filter((i) => i.currency === c.currency),
              'balance',
            ),
          ),
        ).toBe(true);
      expect(own.length).toBeGreaterThan(0);
    },
  },
];

const salesQuestions: Question[] = [
  {
    title: 'what did we invoice last month, with the tax?',
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'last_month' });
      const month = lastMonth(TODAY);
      expect([a.from, a.to]).toEqual([month.from, month.to]);
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, month));
      expect(rows.length).toBeGreaterThan(0);
      expectTotals(a.totals, rows);
    },
  },
  {
    title: 'how much tax did we charge last quarter?',
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'last_quarter' });
      expect([a.from, a.to]).toEqual([LAST_QUARTER.from, LAST_QUARTER.to]);
      expectTotals(
        a.totals,
        books.invoices.filter((i) => invoiced(i) && issuedIn(i, LAST_QUARTER)),
      );
    },
  },
  {
    title: 'what have we invoiced so far this year? (to today, not to 31 December)',
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'this_year' });
      expect([a.from, a.to]).toEqual([YEAR_START, TODAY]);
      expectTotals(
        a.totals,
        books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: YEAR_START, to: TODAY })),
      );
    },
  },
  {
    title: 'how much in NZD have we invoiced this month?',
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'this_month', currency: 'NZD' });
      const rows = books.invoices.filter(
        (i) => invoiced(i) && i.currency === 'NZD' && issuedIn(i, { from: `${TODAY.slice(0, 7)}-01`, to: TODAY }),
      );
      expect(rows.length).toBeGreaterThan(0);
      expectTotals(a.totals, rows);
    },
  },
  {
    title: 'how many invoices of 10,000 or more did we issue last quarter, and what did they come to?',
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'last_quarter', min_total: '10000' });
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, LAST_QUARTER) && !Exact.of('10000').greaterThan(i.total));
      expect(rows.length).toBeGreaterThan(0);
      expectTotals(a.totals, rows);
    },
  },
  {
    title: 'what sold this quarter on invoices under 1,000? (by product, the lines of those invoices only)',
    async run({ ask, books, limit }) {
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, thisQuarter(TODAY)) && !Exact.of(i.total).greaterThan('999.99'));
      const a = await ask('report_sales', { range: 'this_quarter', group_by: 'product', max_total: '999.99', limit });
      expect(rows.length).toBeGreaterThan(0);
      expectTotals(a.totals, rows);
      await expectProductSales(a, books, rows);
    },
  },
  {
    title: 'sales this quarter, month by month',
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'this_quarter', group_by: 'month' });
      const truth = tally(
        books.invoices.filter((i) => invoiced(i) && issuedIn(i, thisQuarter(TODAY))),
        (i) => `${i.issue_date.slice(0, 7)} ${i.currency}`,
        (i) => i.total,
      );
      expectGroups(a.groups, truth, 'total');
    },
  },
  {
    title: 'sales day by day, this last week',
    async run({ ask, books }) {
      const a = await ask('report_sales', { days: 7, group_by: 'day' });
      const week = { from: plus(TODAY, -6), to: TODAY };
      expect([a.from, a.to]).toEqual([week.from, week.to]);
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, week));
      expect(rows.length).toBeGreaterThan(0);
      expectGroups(
        a.groups,
        tally(
          rows,
          (i) => `${i.issue_date} ${i.currency}`,
          (i) => i.total,
        ),
        'total',
      );
    },
  },
  {
    title: 'till sales in the last 30 days, against the rest',
    async run({ ask, books }) {
      const a = await ask('report_sales', { days: 30, group_by: 'channel' });
      const range = { from: plus(TODAY, -29), to: TODAY };
      const truth = tally(
        books.invoices.filter((i) => invoiced(i) && issuedIn(i, range)),
        (i) => `${i.sales_channel} ${i.currency}`,
        (i) => i.total,
      );
      expectGroups(a.groups, truth, 'total');
      expect([...truth.keys()].some((k) => k.startsWith('pos '))).toBe(true);
    },
  },
  {
    title: "this quarter's invoices by status, drafts and voids included",
    async run({ ask, books }) {
      const a = await ask('report_sales', { range: 'this_quarter', group_by: 'status', with_draft_and_void: true });
      const rows = books.invoices.filter((i) => issuedIn(i, thisQuarter(TODAY)));
      expectGroups(
        a.groups,
        tally(
          rows,
          (i) => `${i.status} ${i.currency}`,
          (i) => i.total,
        ),
        'total',
      );
      expect(rows.some((i) => i.status === 'draft')).toBe(true);
    },
  },
  {
    title: 'who did we invoice most last month? (by customer, ranked within each currency, with first and last dates)',
    async run({ ask, books, limit }) {
      const a = await ask('report_sales', { range: 'last_month', group_by: 'customer', limit });
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, lastMonth(TODAY)));
      const key = (i: Json): string => `${i.customer.id} ${i.currency}`;
      const truth = tally(rows, key, (i) => i.total);
      expectGroups(a.groups, truth, 'total', a.groups_left_out);
      for (const g of a.groups) {
        const dates = rows
          .filter((i) => key(i) === `${g.key} ${g.currency}`)
          .map((i) => i.issue_date)
          .sort();
        expect([g.first_issued, g.last_issued]).toEqual([dates[0], dates.at(-1)]);
      }
      // The first group of each currency is that currency's largest; currencies are never ranked together.
      for (const currency of new Set(rows.map((i) => i.currency))) {
        const own = [...truth.entries()].filter(([k]) => k.endsWith(` ${currency}`)).map(([, t]) => t.sum);
        const top = own.reduce((m, t) => (t.greaterThan(m) ? t : m), Exact.of(0));
        expect(same(a.groups.find((g: Json) => g.currency === currency).total, top), currency).toBe(true);
      }
    },
  },
  {
    title: 'who bought from us last year but not yet this year? (one call: by customer, with last dates)',
    async run({ ask, books }) {
      const a = await ask('report_sales', { from: LAST_YEAR.from, to: TODAY, group_by: 'customer', limit: 400 });
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: LAST_YEAR.from, to: TODAY }));
      const last = new Map<string, string>();
      for (const i of rows) {
        const k = `${i.customer.id} ${i.currency}`;
        if ((last.get(k) ?? '') < i.issue_date) last.set(k, i.issue_date);
      }
      const stopped = [...last].filter(([, d]) => d < YEAR_START).map(([k]) => k);
      // At most 400 groups in each currency.
      const perCurrency = tally(
        [...last.keys()].map((k) => ({ currency: k.split(' ')[1] })),
        (r) => r.currency as string,
        () => '0',
      );
      expect(a.groups_left_out).toBe([...perCurrency.values()].reduce((n, t) => n + Math.max(0, t.count - 400), 0));
      const answered = a.groups.filter((g: Json) => g.last_issued < YEAR_START).map((g: Json) => `${g.key} ${g.currency}`);
      if (a.groups_left_out === 0) expect(answered.sort()).toEqual(stopped.sort());
      else for (const k of answered) expect(stopped).toContain(k);
      expect(stopped.length).toBeGreaterThan(0);
    },
  },
  {
    title: 'what has our most frequent customer this year been invoiced, and when first and last?',
    async run({ ask, books }) {
      const ofYear = books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: YEAR_START, to: TODAY }));
      const id = mostFrequent(ofYear);
      const a = await ask('report_sales', { range: 'this_year', group_by: 'customer', customer_id: id });
      const own = ofYear.filter((i) => i.customer.id === id);
      expectTotals(a.totals, own);
      const currencies = [...new Set(own.map((i) => i.currency as string))];
      expect(a.groups.map((g: Json) => g.currency).sort()).toEqual(currencies.sort());
      for (const g of a.groups) {
        const dates = own
          .filter((i) => i.currency === g.currency)
          .map((i) => i.issue_date)
          .sort();
        expect([g.key, g.first_issued, g.last_issued], g.currency).toEqual([id, dates[0], dates.at(-1)]);
      }
    },
  },
  {
    title: 'last quarter in our most used currency, month by month',
    async run({ ask, books }) {
      const quarter = books.invoices.filter((i) => invoiced(i) && issuedIn(i, LAST_QUARTER));
      const perCurrency = tally(
        quarter,
        (i) => i.currency as string,
        (i) => i.total,
      );
      const [currency] = [...perCurrency.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))[0]!;
      const a = await ask('report_sales', { range: 'last_quarter', group_by: 'month', currency });
      const truth = tally(
        quarter.filter((i) => i.currency === currency),
        (i) => `${(i.issue_date as string).slice(0, 7)} ${currency}`,
        (i) => i.total,
      );
      expect(a.totals.map((t: Json) => t.currency)).toEqual([currency]);
      expectGroups(a.groups, truth, 'total');
    },
  },
];

const productQuestions: Question[] = [
  {
    title: 'our top products this quarter, from the invoice lines, whole in one call',
    async run({ ask, books, limit }) {
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, thisQuarter(TODAY)));
      // Lines the mirror lacks are read while the answer waits (they fit: the key's limit is lifted here).
      const a = await ask('report_sales', { range: 'this_quarter', group_by: 'product', limit });
      expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
      expect(a.lines_pending).toBeUndefined();
      await expectProductSales(a, books, rows);
    },
  },
  {
    title: "what did our most frequent customer this year buy, by product? (by the customer's id)",
    async run({ ask, books, limit }) {
      const ofYear = books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: YEAR_START, to: TODAY }));
      const id = mostFrequent(ofYear);
      const a = await ask('report_sales', { range: 'this_year', group_by: 'product', customer_id: id, limit });
      const rows = ofYear.filter((i) => i.customer.id === id);
      expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
      await expectProductSales(a, books, rows);
    },
  },
  {
    title: 'our three best products this quarter by subtotal, ranked within each currency',
    async run({ ask, books }) {
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, thisQuarter(TODAY)));
      const a = await ask('report_sales', { range: 'this_quarter', group_by: 'product', rank_by: 'subtotal', limit: 3 });
      const { subtotals } = await productSales(books, rows);
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
    },
  },
  {
    title: 'who bought our most invoiced product over the past year, and how many each? (one call: units and revenue per buyer)',
    async run({ ask, books, limit }) {
      const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, { from: plus(TODAY, -364), to: TODAY }));
      await productSales(books, rows);
      const linesOf = (i: Json): Json[] => books.lines.get(i.id)!;
      const invoicesOf = new Map<number, Set<number>>();
      for (const i of rows)
        for (const l of linesOf(i))
          if (l.product_id !== null) invoicesOf.set(l.product_id, (invoicesOf.get(l.product_id) ?? new Set()).add(i.id));
      const [productId] = [...invoicesOf].sort((a, b) => b[1].size - a[1].size || a[0] - b[0])[0]!;
      const a = await ask('report_sales', { days: 365, product_id: productId, group_by: 'customer', limit });
      // Each buyer's units and revenue of the product, from the raw invoice lines, with the test's own decimal.
      const buyers = new Map<string, { invoices: number; quantity: Exact; subtotal: Exact; total: Exact }>();
      for (const i of rows) {
        const own = linesOf(i).filter((l) => l.product_id === productId);
        if (own.length === 0) continue;
        const key = `${i.customer.id} ${i.currency}`;
        const b = buyers.get(key) ?? { invoices: 0, quantity: Exact.of(0), subtotal: Exact.of(0), total: Exact.of(0) };
        b.invoices++;
        for (const l of own) {
          b.quantity = b.quantity.plus(l.quantity);
          b.subtotal = b.subtotal.plus(l.line_total);
          b.total = b.total.plus(l.line_total).plus(l.tax_amount);
        }
        buyers.set(key, b);
      }
      expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
      expect(a.groups.length + a.groups_left_out).toBe(buyers.size);
      expect(a.groups.length).toBeGreaterThan(1);
      const text = a.text as string;
      for (const g of a.groups) {
        const b = buyers.get(`${g.key} ${g.currency}`);
        expect(b, `${g.key} ${g.currency}`).toBeDefined();
        expect(g.count, `${g.key} invoices`).toBe(b!.invoices);
        expect(typeof g.quantity, `${g.key} quantity is a decimal string`).toBe('string');
        expect(same(g.quantity, b!.quantity), `${g.key} quantity ${g.quantity} vs ${b!.quantity}`).toBe(true);
        expect(same(g.subtotal, b!.subtotal), `${g.key} subtotal`).toBe(true);
        expect(same(g.total, b!.total), `${g.key} total`).toBe(true);
        expect(text).toContain(`(customer ${g.key}): ${g.currency} `);
        expect(text).toContain(`total ${g.total}, quantity ${g.quantity}`);
      }
      for (const t of a.totals) {
        const own = [...buyers].filter(([key]) => key.endsWith(` ${t.currency}`)).map(([, b]) => b);
        const summed = (figure: 'quantity' | 'total'): Exact => own.reduce((sum, b) => sum.plus(b[figure]), Exact.of(0));
        expect(same(t.quantity, summed('quantity')), `${t.currency} quantity`).toBe(true);
        expect(same(t.total, summed('total')), `${t.currency} total`).toBe(true);
      }
    },
  },
  {
    title: "what is low at one branch, by that branch's own stock?",
    async run({ ask, books }) {
      const branch = books.products.find((p) => p.stock?.branches?.length)!.stock.branches[1];
      const a = await ask('report_low_stock', { branch: branch.branch });
      const truth = lowStock(books).filter((l) => l.branch_id === branch.branch_id);
      expect(a.items.map((i: Json) => i.product_id).sort((x: number, y: number) => x - y)).toEqual(truth.map((l) => l.product_id));
      for (const i of a.items) {
        const t = truth.find((l) => l.product_id === i.product_id)!;
        expect(same(i.short_by, t.short_by)).toBe(true);
      }
    },
  },
  {
    title: 'what is low anywhere, branch by branch?',
    async run({ ask, books }) {
      const a = await ask('report_low_stock');
      const truth = lowStock(books);
      const key = (l: { product_id: number; branch_id: number }): string => `${l.product_id}@${l.branch_id}`;
      expect(a.items.map(key).sort()).toEqual(truth.map(key).sort());
      for (const i of a.items) expect(same(i.short_by, truth.find((l) => key(l) === key(i))!.short_by), key(i)).toBe(true);
      expect(new Set(truth.map((l) => l.branch_id)).size).toBeGreaterThan(1);
    },
  },
];

/** Every tracked, active product at or under its reorder level in a branch, by product id. */
function lowStock(books: RawBooks): { product_id: number; branch_id: number; short_by: Exact }[] {
  return books.products
    .filter((p) => p.is_active && p.track_stock && p.stock)
    .flatMap((p) =>
      p.stock.branches
        .filter((b: Json) => !Exact.of(b.on_hand).greaterThan(p.stock.reorder_level))
        .map((b: Json) => ({
          product_id: p.id as number,
          branch_id: b.branch_id as number,
          short_by: Exact.of(p.stock.reorder_level).minus(b.on_hand),
        })),
    )
    .sort((x, y) => x.product_id - y.product_id);
}

const paymentQuestions: Question[] = [
  {
    title: 'cash received last month, by method',
    async run({ ask, books }) {
      const a = await ask('report_received', { range: 'last_month', group_by: 'method' });
      const month = lastMonth(TODAY);
      const rows = books.payments.filter((p) => p.payment_date >= month.from && p.payment_date <= month.to);
      const truth = tally(
        rows,
        (p) => `${p.method} ${p.currency}`,
        (p) => p.amount,
      );
      expectGroups(a.groups, truth, 'amount');
      expect(new Set(rows.map((p) => p.method)).size).toBeGreaterThanOrEqual(3);
    },
  },
  {
    title: 'who paid us in the last 90 days, and how much?',
    async run({ ask, books, limit }) {
      const a = await ask('report_received', { days: 90, group_by: 'customer', limit });
      const rows = books.payments.filter((p) => p.payment_date >= plus(TODAY, -89) && p.payment_date <= TODAY);
      const truth = tally(
        rows,
        (p) => `${p.customer.id} ${p.currency}`,
        (p) => p.amount,
      );
      expectGroups(a.groups, truth, 'amount', a.groups_left_out);
      const all = tally(
        rows,
        (p) => p.currency,
        (p) => p.amount,
      );
      for (const t of a.totals) expect(same(t.amount, all.get(t.currency)!.sum)).toBe(true);
    },
  },
  {
    title: 'money in over the last four weeks, week by week (weeks from Monday)',
    async run({ ask, books }) {
      const a = await ask('report_received', { days: 28, group_by: 'week' });
      const rows = books.payments.filter((p) => p.payment_date >= plus(TODAY, -27) && p.payment_date <= TODAY);
      const monday = (date: string): string => plus(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));
      expectGroups(
        a.groups,
        tally(
          rows,
          (p) => `${monday(p.payment_date)} ${p.currency}`,
          (p) => p.amount,
        ),
        'amount',
      );
    },
  },
  {
    title: 'how much has our biggest payer this year paid us, payment by payment?',
    async run({ ask, books }) {
      const ofYear = books.payments.filter((p) => p.payment_date >= YEAR_START && p.payment_date <= TODAY);
      const id = mostFrequent(ofYear);
      const a = await ask('report_received', { range: 'this_year', customer_id: id, limit: 400 });
      const own = ofYear.filter((p) => p.customer.id === id);
      expect(ids(a.payments)).toEqual(ids(own));
      for (const t of a.totals)
        expect(
          same(
            t.amount,
            sumOf(
              own.filter((p) => p.currency === t.currency),
              'amount',
            ),
          ),
        ).toBe(true);
      expect(a.totals.reduce((n: number, t: Json) => n + t.count, 0)).toBe(own.length);
    },
  },
];

const customerQuestions: Question[] = [
  {
    title: 'how does our biggest debtor stand? (found by customer code)',
    async run({ ask, books }) {
      const owed = tally(
        books.invoices.filter((i) => receivable(i) && i.currency === 'NZD'),
        (i) => i.customer.id,
        (i) => i.balance,
      );
      const [id] = [...owed].sort(([a1, x], [b1, y]) => y.sum.comparedTo(x.sum) || a1 - b1)[0]!;
      const customer = books.customers.find((c) => c.id === id);
      const a = await ask('report_customer', { search: customer.code });
      expect(a.customer.id).toBe(id);
      const truth = customerTruth(books, id);
      expect(a.balances.length).toBe(truth.balances.size);
      for (const b of a.balances) expect(same(b.balance, truth.balances.get(b.currency)!)).toBe(true);
      expect(ids(a.unpaid)).toEqual(truth.unpaid);
      expect(ids(a.open_quotes)).toEqual(truth.openQuotes);
    },
  },
  {
    title: 'what does the customer with this email owe?',
    async run({ ask, books }) {
      const customer = books.customers.find((c) => c.email && books.invoices.some((i) => i.customer.id === c.id && receivable(i)));
      const a = await ask('report_customer', { search: customer.email });
      expect(a.customer.id).toBe(customer.id);
      const truth = customerTruth(books, customer.id);
      for (const b of a.balances) expect(same(b.balance, truth.balances.get(b.currency)!)).toBe(true);
      expect(a.balances.length).toBe(truth.balances.size);
    },
  },
  {
    title: 'which quotes are open, and which expire within 7 days?',
    async run({ ask, books }) {
      const a = await ask('report_quotes', { expiring_days: 7 });
      const open = books.quotes.filter((q) => OPEN_QUOTE.includes(q.status));
      const expiring = open.filter((q) => q.valid_until >= TODAY && q.valid_until <= plus(TODAY, 7));
      expect(a.open.reduce((n: number, f: Json) => n + f.count, 0)).toBe(open.length);
      expect(
        same(
          a.open.reduce((s: Exact, f: Json) => s.plus(f.value), Exact.of(0)),
          sumOf(open, 'total'),
        ),
      ).toBe(true);
      expect(a.expiring.reduce((n: number, f: Json) => n + f.count, 0)).toBe(expiring.length);
      expect(
        same(
          a.expiring.reduce((s: Exact, f: Json) => s.plus(f.value), Exact.of(0)),
          sumOf(expiring, 'total'),
        ),
      ).toBe(true);
      expect(expiring.length).toBeGreaterThan(0);
    },
  },
  {
    title: 'which open quotes expire next after the first five? (the second page)',
    async run({ ask, books }) {
      const open = books.quotes
        .filter((q) => OPEN_QUOTE.includes(q.status))
        .sort((x, y) => (x.valid_until < y.valid_until ? -1 : x.valid_until > y.valid_until ? 1 : x.id - y.id));
      const a = await ask('report_quotes', { limit: 5, offset: 5 });
      expect(a.quotes.map((q: Json) => q.id)).toEqual(open.slice(5, 10).map((q) => q.id));
      expect(a.quotes_left_out).toBe(Math.max(0, open.length - 10));
      expect(open.length).toBeGreaterThan(10);
    },
  },
  {
    title: 'what quotes has the customer with the most open quotes still open?',
    async run({ ask, books }) {
      const open = books.quotes.filter((q) => OPEN_QUOTE.includes(q.status));
      const id = mostFrequent(open);
      const a = await ask('report_quotes', { customer_id: id, limit: 400 });
      const own = open.filter((q) => q.customer.id === id);
      expect(ids(a.quotes)).toEqual(ids(own));
      expect(a.open.reduce((n: number, f: Json) => n + f.count, 0)).toBe(own.length);
      expect(
        same(
          a.open.reduce((s: Exact, f: Json) => s.plus(f.value), Exact.of(0)),
          sumOf(own, 'total'),
        ),
      ).toBe(true);
    },
  },
];

const draftQuestion: Question = {
  title: '"draft an invoice for <customer> for 3 <product>": one search, one create',
  calls: 2,
  writes: true,
  async run({ ask, books }) {
    const customer = books.customers.find((c) => c.status === 'active')!;
    const product = books.products.find((p) => p.is_active && p.sku)!;
    const found = await ask('find_records', { search: [customer.name, product.name] });
    const customerId = found.results[0].customers.find((c: Json) => c.name === customer.name)?.id;
    const productId = found.results[1].products.find((p: Json) => p.name === product.name)?.id;
    expect([customerId, productId]).toEqual([customer.id, product.id]);
    const draft = await ask('create_draft_invoice', { customer_id: customerId, items: [{ product_id: productId, quantity: 3 }] });
    const expected = Exact.of(product.default_price).times(3).roundHalfUp(2);
    expect(same(draft.invoice?.subtotal ?? draft.subtotal, expected)).toBe(true);
  },
};

/** The questions in the order they are asked; the one that writes comes last. */
export const QUESTIONS: readonly Question[] = [
  ...owedQuestions,
  ...salesQuestions,
  ...productQuestions,
  ...paymentQuestions,
  ...customerQuestions,
  draftQuestion,
];
