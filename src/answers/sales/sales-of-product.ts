// report_sales narrowed to one product: its lines' own amounts on each invoice of the range that has one,
// grouped as any sales (by period, customer, channel, status, or as its one product group). The range's
// invoices and lines are read as rows (the store's sums have no product filter), and the answer says how
// many of the range's invoices had their lines stored, as every product figure does.

import type { InvoiceFilter, MirrorReader } from '../../books/types.js';
import {
  answerSales,
  lineSumsOf,
  productSalesAnswer,
  productShare,
  rankProducts,
  type SalesAnswer,
  type SalesQuestion,
  salesInvoices,
  salesTotals,
} from './figures.js';

export async function salesOfProduct(
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
