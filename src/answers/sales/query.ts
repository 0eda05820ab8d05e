// What report_sales reads of the books, as one state of them: by product, the store's own sums where it can
// make them (no invoice or line read into JS), else the rows summed here; narrowed to one product, its lines'
// own amounts on each invoice of the range that has one (as rows: the store's sums have no product filter);
// otherwise the range's invoices. Product answers say how many of the range's invoices had their lines.

import type { InvoiceFilter, MirrorReader } from '../../store/types.js';
import {
  answerSales,
  boundsTotals,
  figuresOfSums,
  lineSumsOf,
  productSalesAnswer,
  productShare,
  rankProducts,
  type SalesAnswer,
  type SalesQuestion,
  salesInvoices,
  salesTotals,
  shownProductIds,
} from './figures.js';

/** What the question reads, and how: narrowed to one product, grouped by product, or neither. */
export interface SalesReading {
  ofRange: InvoiceFilter;
  question: SalesQuestion;
  productId?: number | undefined;
}

/** The answer to a sales question from one state of the books. */
export function readSales(
  snapshot: <T>(work: (read: MirrorReader) => Promise<T>) => Promise<T>,
  reading: SalesReading,
): Promise<SalesAnswer> {
  const { ofRange, question, productId } = reading;
  if (productId !== undefined) return snapshot((read) => salesOfProduct(read, ofRange, question, productId));
  if (question.groupBy === 'product') return snapshot((read) => productSales(read, ofRange, question));
  return snapshot(async (read) => answerSales(await read.invoices(ofRange), question));
}

/** Sales by product: the totals and the lines' sums of one state of the books, the store's where it can. */
async function productSales(read: MirrorReader, ofRange: InvoiceFilter, question: SalesQuestion): Promise<SalesAnswer> {
  const bounded = boundsTotals(question);
  const totals = bounded ? null : await read.invoiceSums(ofRange);
  const summed = bounded ? null : await read.lineSums(ofRange, { limit: question.limit, rankBy: question.rankBy ?? 'total' });
  const invoices = totals && summed ? [] : salesInvoices(await read.invoices(ofRange), question);
  const sums = summed ?? lineSumsOf(invoices, await read.lines(ofRange));
  const ranked = rankProducts(sums, question.limit, question.rankBy);
  const names = sums.names ?? (await read.productNames(shownProductIds(ranked)));
  return productSalesAnswer(totals ? figuresOfSums(totals) : salesTotals(invoices), sums, ranked, names);
}

async function salesOfProduct(
  read: MirrorReader,
  ofRange: InvoiceFilter,
  question: SalesQuestion,
  productId: number,
): Promise<SalesAnswer> {
  // Bounds on the total are the whole invoice's: applied here, not again to the product's share.
  const invoices = salesInvoices(await read.invoices(ofRange), question);
  const lines = await read.lines(ofRange);
  const stored = new Set(lines.map((l) => l.invoice_id));
  const coverage = { with_lines: invoices.filter((i) => stored.has(i.id)).length, invoices: invoices.length };
  const share = productShare(invoices, lines, productId);
  if (question.groupBy !== 'product') {
    const answer = answerSales(share, { ...question, minTotal: undefined, maxTotal: undefined });
    return { ...answer, lines: coverage };
  }
  const sums = lineSumsOf(
    invoices,
    lines.filter((l) => l.product_id === productId),
  );
  const answer = productSalesAnswer(
    salesTotals(share),
    sums,
    rankProducts(sums, question.limit, question.rankBy),
    await read.productNames([productId]),
  );
  return { ...answer, lines: coverage };
}
