// Sales: invoices issued in a date range, summed per currency (count, subtotal, tax, total) and grouped by
// period, customer, sales channel, status or product. Product figures come from the stored lines, and say
// how many of the range's invoices had their lines stored, so a partial figure never passes for a whole one.

import { Decimal } from '../../core/decimal.js';
import type { CurrencySums, InvoiceRow, LineRow, LineSums, ProductLineSums } from '../../store/types.js';
import { type DateRange, inRange, PERIODS, type Period, periodOf } from '../dates.js';
import { byCurrency, groupBy, keyOf, rankedPerCurrency, readAmount, Sum } from '../money.js';

export const SALES_GROUPS = [...PERIODS, 'customer', 'channel', 'status', 'product'] as const;
export type SalesGroupBy = (typeof SALES_GROUPS)[number];

export const LEFT_OUT_BY_DEFAULT = ['draft', 'void'] as const;

export interface SalesFigures {
  currency: string;
  /** Invoices (for a product: invoices with a line of it). */
  count: number;
  subtotal: string;
  tax: string;
  total: string;
  /** Product groups, and any figures of one product's lines: the quantity sold, in its shortest exact form. */
  quantity?: string;
}

export interface SalesGroup extends SalesFigures {
  /** The period label, customer id, channel (null: none), status or product id (null: lines without a product). */
  key: string | number | null;
  label: string;
  /** Customer groups: the issue dates of the customer's first and last invoices in the range. */
  first_issued?: string;
  last_issued?: string;
}

export const RANK_FIGURES = ['total', 'subtotal'] as const;
export type RankFigure = (typeof RANK_FIGURES)[number];

export interface SalesQuestion {
  range: DateRange;
  /** Only these statuses; by default every status but draft and void. */
  statuses?: readonly string[] | undefined;
  groupBy?: SalesGroupBy | undefined;
  /** Groups to show per currency, the largest by `rankBy` first (periods: every one, in date order). */
  limit: number;
  /** The figure groups are ranked by, within each currency (never across currencies); total by default. */
  rankBy?: RankFigure | undefined;
  /** Only invoices whose total (with tax) is at least / at most this, compared exactly. */
  minTotal?: string | undefined;
  maxTotal?: string | undefined;
}

export interface SalesAnswer {
  totals: SalesFigures[];
  groups: SalesGroup[];
  groups_left_out: number;
  /** Product grouping only: invoices of the range whose lines are stored, of all the range's invoices. */
  lines?: { with_lines: number; invoices: number };
}

export function salesInvoices<R extends InvoiceRow>(
  invoices: readonly R[],
  q: Pick<SalesQuestion, 'range' | 'statuses' | 'minTotal' | 'maxTotal'>,
): R[] {
  const min = q.minTotal === undefined ? null : readAmount(q.minTotal);
  const max = q.maxTotal === undefined ? null : readAmount(q.maxTotal);
  const inBounds = (total: string): boolean =>
    (min === null || readAmount(total).compare(min) >= 0) && (max === null || readAmount(total).compare(max) <= 0);
  return invoices.filter(
    (r) =>
      inRange(r.issue_date, q.range) &&
      (q.statuses ? q.statuses.includes(r.status) : !(LEFT_OUT_BY_DEFAULT as readonly string[]).includes(r.status)) &&
      inBounds(r.total),
  );
}

/** Whether the question bounds invoice totals, which the store's sums cannot: then the rows are summed here. */
export const boundsTotals = (q: Pick<SalesQuestion, 'minTotal' | 'maxTotal'>): boolean =>
  q.minTotal !== undefined || q.maxTotal !== undefined;

/** An invoice as a sales figure counts it: one product's share of it carries that product's quantity. */
export type SalesRow = InvoiceRow & { quantity?: string };

function figures(currency: string, rows: readonly SalesRow[]): SalesFigures {
  const subtotal = new Sum();
  const tax = new Sum();
  const total = new Sum();
  const quantity = new Sum();
  let ofProduct = false;
  for (const r of rows) {
    subtotal.add(r.subtotal);
    tax.add(r.tax_total);
    total.add(r.total);
    if (r.quantity === undefined) continue;
    ofProduct = true;
    quantity.add(r.quantity);
  }
  const summed = { currency, count: rows.length, subtotal: subtotal.toString(), tax: tax.toString(), total: total.toString() };
  return ofProduct ? { ...summed, quantity: quantity.decimal.toShortString() } : summed;
}

/** The totals per currency from the store's sums. */
export function figuresOfSums(sums: readonly CurrencySums[]): SalesFigures[] {
  const text = (parts: readonly string[]): string => sumOf(parts).toString();
  return sums
    .map((c) => ({ currency: c.currency, count: c.count, subtotal: text(c.subtotal), tax: text(c.tax), total: text(c.total) }))
    .sort(byCurrency);
}

/** The totals per currency of invoices already picked (salesInvoices). */
export function salesTotals(rows: readonly SalesRow[]): SalesFigures[] {
  return [...groupBy(rows, (r) => r.currency)].map(([currency, own]) => figures(currency, own)).sort(byCurrency);
}

type HeaderGroup = Exclude<SalesGroupBy, 'product'>;

function headerKey(r: InvoiceRow, by: HeaderGroup): [string | number | null, string] {
  if ((PERIODS as readonly string[]).includes(by)) {
    const p = periodOf(r.issue_date, by as Period);
    return [p, by === 'week' ? `week of ${p}` : p];
  }
  if (by === 'customer') return [r.customer_id, r.customer_name];
  if (by === 'channel') return [r.sales_channel, r.sales_channel ?? 'no channel'];
  return [r.status, r.status];
}

function headerGroups(rows: readonly SalesRow[], by: HeaderGroup): SalesGroup[] {
  const groups = groupBy(rows, (r) => keyOf(headerKey(r, by)[0], r.currency));
  return [...groups.values()].map((own) => {
    const first = own[0] as SalesRow;
    const [key, label] = headerKey(first, by);
    if (by !== 'customer') return { key, label, ...figures(first.currency, own) };
    const dates = own.map((r) => r.issue_date).sort();
    return { key, label, ...figures(first.currency, own), first_issued: dates[0] as string, last_issued: dates.at(-1) as string };
  });
}

/**
 * One product's share of these invoices: each invoice with a line of it, its amounts those lines' own
 * (subtotal the lines' totals, tax their tax, total the two) and their quantity, so that every grouping of
 * invoices applies and says how many were sold.
 */
export function productShare(invoices: readonly InvoiceRow[], lines: readonly LineRow[], productId: number): SalesRow[] {
  const own = groupBy(
    lines.filter((l) => l.product_id === productId),
    (l) => l.invoice_id,
  );
  return invoices.flatMap((row) => {
    const ofRow = own.get(row.id);
    if (!ofRow) return [];
    const subtotal = new Sum();
    const tax = new Sum();
    const quantity = new Sum();
    for (const l of ofRow) {
      subtotal.add(l.line_total);
      tax.add(l.tax_amount);
      quantity.add(l.quantity);
    }
    const total = new Sum().addSum(subtotal).addSum(tax).toString();
    return [{ ...row, subtotal: subtotal.toString(), tax_total: tax.toString(), total, quantity: quantity.decimal.toShortString() }];
  });
}

/** The lines of the range's invoices summed per product and currency here (when the store cannot). */
export function lineSumsOf(rows: readonly InvoiceRow[], lines: readonly LineRow[]): LineSums {
  const byInvoice = new Map(rows.map((r) => [r.id, r]));
  const ofRange = lines.filter((l) => byInvoice.has(l.invoice_id));
  const groups = groupBy(ofRange, (l) => keyOf(l.product_id, byInvoice.get(l.invoice_id)?.currency));
  const products = [...groups.values()].map((own): ProductLineSums => {
    const first = own[0] as LineRow;
    const subtotal = new Sum();
    const tax = new Sum();
    const quantity = new Sum();
    for (const l of own) {
      subtotal.add(l.line_total);
      tax.add(l.tax_amount);
      quantity.add(l.quantity);
    }
    return {
      product_id: first.product_id,
      currency: byInvoice.get(first.invoice_id)?.currency ?? '',
      invoices: new Set(own.map((l) => l.invoice_id)).size,
      line_total: [subtotal.toString()],
      tax_amount: [tax.toString()],
      quantity: [quantity.decimal.toShortString()],
      description: first.description,
    };
  });
  return { products, withLines: new Set(ofRange.map((l) => l.invoice_id)).size };
}

const sumOf = (parts: readonly string[]): Sum => parts.reduce((sum, part) => sum.add(part), new Sum());

/** Products ranked per currency by the figure asked (ties by id), summed but not yet written out. */
export interface RankedProducts {
  shown: { p: ProductLineSums; subtotal: Sum; tax: Sum; total: Sum }[];
  leftOut: number;
}

export function rankProducts(sums: LineSums, limit: number, rankBy: RankFigure = 'total'): RankedProducts {
  const summed = sums.products.map((p) => {
    const subtotal = sumOf(p.line_total);
    const tax = sumOf(p.tax_amount);
    // A line's total is its line_total plus its tax: the group's total is the two sums added.
    return { p, currency: p.currency, key: p.product_id, subtotal, tax, total: new Sum().addSum(subtotal).addSum(tax) };
  });
  const ranked = rankedPerCurrency(summed, (g) => (rankBy === 'subtotal' ? g.subtotal : g.total).decimal, limit);
  // A store that ranked them already gave only the shown ones, and counted the rest.
  return { ...ranked, leftOut: ranked.leftOut + (sums.leftOut ?? 0) };
}

/** The products whose names the shown groups need (a product question names only what it shows). */
export const shownProductIds = (ranked: RankedProducts): number[] =>
  ranked.shown.flatMap(({ p }) => (p.product_id === null ? [] : [p.product_id]));

function productGroups(ranked: RankedProducts, names: ReadonlyMap<number, string>): SalesGroup[] {
  return ranked.shown.map(({ p, subtotal, tax, total }) => ({
    key: p.product_id,
    label: p.product_id === null ? 'lines without a product' : (names.get(p.product_id) ?? p.description),
    currency: p.currency,
    count: p.invoices,
    subtotal: subtotal.toString(),
    tax: tax.toString(),
    total: total.toString(),
    quantity: sumOf(p.quantity).decimal.toShortString(),
  }));
}

const isPeriod = (by: SalesGroupBy): boolean => (PERIODS as readonly string[]).includes(by);

/** Periods: every one, in date order; other groups ranked per currency (see rankedPerCurrency). */
function ordered(groups: SalesGroup[], q: SalesQuestion): { shown: SalesGroup[]; leftOut: number } {
  const by = q.groupBy as SalesGroupBy;
  if (isPeriod(by)) {
    const sorted = groups.sort((a, b) => String(a.key).localeCompare(String(b.key)) || byCurrency(a, b));
    return { shown: sorted.slice(0, q.limit), leftOut: Math.max(0, sorted.length - q.limit) };
  }
  return rankedPerCurrency(groups, (g) => Decimal.parse(q.rankBy === 'subtotal' ? g.subtotal : g.total), q.limit);
}

/** `invoices` as the mirror holds them; for product groups, their lines summed and the products' names. */
export function answerSales(
  invoices: readonly SalesRow[],
  q: SalesQuestion,
  lines: LineSums = { products: [], withLines: 0 },
  productNames: ReadonlyMap<number, string> = new Map(),
): SalesAnswer {
  const rows = salesInvoices(invoices, q);
  if (q.groupBy === 'product') return answerSalesByProduct(salesTotals(rows), lines, productNames, q.limit, q.rankBy);
  const answer: SalesAnswer = { totals: salesTotals(rows), groups: [], groups_left_out: 0 };
  if (!q.groupBy) return answer;
  const { shown, leftOut } = ordered(headerGroups(rows, q.groupBy), q);
  answer.groups = shown;
  answer.groups_left_out = leftOut;
  return answer;
}

/** Sales by product from the totals (however summed), the products ranked and the shown ones' names. */
export function productSalesAnswer(
  totals: SalesFigures[],
  lines: LineSums,
  ranked: RankedProducts,
  productNames: ReadonlyMap<number, string>,
): SalesAnswer {
  return {
    totals,
    groups: productGroups(ranked, productNames),
    groups_left_out: ranked.leftOut,
    lines: { with_lines: lines.withLines, invoices: totals.reduce((n, t) => n + t.count, 0) },
  };
}

/** The same in one step, for a caller that has every name at hand. */
export function answerSalesByProduct(
  totals: SalesFigures[],
  lines: LineSums,
  productNames: ReadonlyMap<number, string>,
  limit: number,
  rankBy: RankFigure = 'total',
): SalesAnswer {
  return productSalesAnswer(totals, lines, rankProducts(lines, limit, rankBy), productNames);
}
