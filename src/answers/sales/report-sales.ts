// report_sales: what was invoiced in a date range, per currency, grouped as asked.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import { INVOICE_STATUSES } from '../../../tools/params.js';
import { counted } from '../../core/counted.js';
import { RefusedQuestion } from '../../core/refused.js';
import type { Freshness, InvoiceFilter } from '../../store/types.js';
import { checkRangeRequest, rangeWords, resolveRange } from '../dates.js';
import { amountArg, asOfFields, asOfLine, currencyArg, freshBooks, limit, rangeArgs, rangeReport, shownOf } from '../fresh.js';
import { readAmount } from '../money.js';
import { LEFT_OUT_BY_DEFAULT, RANK_FIGURES, SALES_GROUPS, type SalesAnswer, type SalesFigures } from './figures.js';
import { readSales } from './query.js';

const linesPendingOf = (f: Freshness): { lines_pending?: { invoices: number; seconds: number | null } } =>
  f.linesPending ? { lines_pending: f.linesPending } : {};

const figuresText = (f: SalesFigures): string =>
  `${f.currency} ${counted(f.count, 'invoice')}, subtotal ${f.subtotal}, tax ${f.tax}, total ${f.total}${f.quantity !== undefined ? `, quantity ${f.quantity}` : ''}`;

/** Why product figures are partial, when they will be whole, and that asking again beats reading lines by hand. */
function partialWords(pending: Freshness['linesPending']): string {
  if (!pending) return ' (PARTIAL: lines of the others are not stored yet; ask again in a few minutes for whole figures)';
  const about = pending.seconds === null ? null : pending.seconds < 120 ? `${pending.seconds} s` : `${Math.ceil(pending.seconds / 60)} min`;
  const again = about === null ? 'ask again in a few minutes' : `ask again after about ${about}`;
  return (
    ` (PARTIAL: the lines of ${counted(pending.invoices, 'invoice')} are too many to read while you wait; they are read first in the background` +
    `${about === null ? '' : `, whole in about ${about}`}. For whole figures, ${again} rather than reading invoices' lines one by one)`
  );
}

function salesText(a: SalesAnswer, head: string, groupBy: string | undefined, pending: Freshness['linesPending']): string {
  const out = [head, ...(a.totals.length > 0 ? a.totals.map((t) => `Total: ${figuresText(t)}`) : ['No invoices in this range.'])];
  if (a.lines) {
    const whole = a.lines.with_lines === a.lines.invoices;
    out.push(
      `Product figures from the lines of ${a.lines.with_lines} of ${counted(a.lines.invoices, 'invoice')}${whole ? '' : partialWords(pending)}.`,
    );
  }
  if (groupBy) {
    out.push(`By ${groupBy}${shownOf(a.groups.length, a.groups_left_out)}:`);
    for (const g of a.groups) {
      const key = groupBy === 'product' && g.key !== null ? ` (product ${g.key})` : groupBy === 'customer' ? ` (customer ${g.key})` : '';
      const dates = g.first_issued ? `, first issued ${g.first_issued}, last ${g.last_issued}` : '';
      out.push(`- ${g.label}${key}: ${figuresText(g)}${dates}`);
    }
  }
  return out.join('\n');
}

export const reportSales = defineTool({
  name: 'report_sales',
  title: 'Sales',
  description:
    'Invoiced count, subtotal, tax and total by issue date, exact per currency, grouped by period, customer, channel (pos), status or product (from lines). Draft and void left out unless asked.',
  toolset: 'invoices',
  scope: 'invoices.read',
  books: true,
  input: z.object({
    ...rangeArgs,
    group_by: z.enum(SALES_GROUPS).optional(),
    customer_id: z.number().int().positive().optional().describe('From find_records'),
    product_id: z.number().int().positive().optional().describe("Only this product's lines"),
    currency: currencyArg.optional(),
    rank_by: z.enum(RANK_FIGURES).default('total').describe('Groups ranked per currency by'),
    min_total: amountArg.optional().describe('Only invoices totalling at least this'),
    max_total: amountArg.optional().describe('At most this'),
    with_draft_and_void: z.boolean().default(false),
    limit: limit(400, 50).describe('Groups per currency'),
  }),
  output: z.object({
    ...rangeReport,
    lines: z.object({ with_lines: z.number().int(), invoices: z.number().int() }).optional(),
    lines_pending: z.object({ invoices: z.number().int(), seconds: z.number().int().nullable() }).optional(),
  }),
  annotations: READ_HINTS,
  view: 'report-chart',
  async handler(ctx, args) {
    checkRangeRequest(args);
    if (
      args.min_total !== undefined &&
      args.max_total !== undefined &&
      readAmount(args.min_total).compare(readAmount(args.max_total)) > 0
    ) {
      throw new RefusedQuestion(
        `min_total ${args.min_total} is more than max_total ${args.max_total}: send a min_total at most max_total.`,
      );
    }
    const invoicesOf = (today: string): InvoiceFilter => {
      const { from, to } = resolveRange(args, today);
      return {
        issuedFrom: from,
        issuedTo: to,
        ...(args.with_draft_and_void ? { statuses: INVOICE_STATUSES } : { excludeStatuses: LEFT_OUT_BY_DEFAULT }),
        ...(args.customer_id !== undefined ? { customerId: args.customer_id } : {}),
        ...(args.currency !== undefined ? { currency: args.currency } : {}),
      };
    };
    const byProduct = args.group_by === 'product';
    const ofProduct = args.product_id !== undefined;
    // Product figures come from invoices and their lines; products give the groups their names only.
    const { snapshot, freshness } = await freshBooks(
      ctx,
      ['invoices'],
      byProduct || ofProduct ? invoicesOf : undefined,
      byProduct || ofProduct ? ['products'] : undefined,
    );
    const range = resolveRange(args, freshness.today);
    const question = {
      range,
      statuses: args.with_draft_and_void ? INVOICE_STATUSES : undefined,
      groupBy: args.group_by,
      limit: args.limit,
      rankBy: args.rank_by,
      minTotal: args.min_total,
      maxTotal: args.max_total,
    };
    const answer = await readSales(snapshot, { ofRange: invoicesOf(freshness.today), question, productId: args.product_id });
    const which = [
      args.with_draft_and_void ? 'every status' : 'not draft or void',
      ...(args.customer_id !== undefined ? [`customer ${args.customer_id}`] : []),
      ...(args.product_id !== undefined ? [`the lines of product ${args.product_id}`] : []),
      ...(args.currency !== undefined ? [`${args.currency} only`] : []),
      ...(args.min_total !== undefined ? [`total at least ${args.min_total}`] : []),
      ...(args.max_total !== undefined ? [`total at most ${args.max_total}`] : []),
    ].join(', ');
    const head = `Sales issued ${rangeWords(args, range)}, ${which}. ${asOfLine(freshness)}`;
    return {
      structured: { ...asOfFields(freshness), ...range, ...answer, ...linesPendingOf(freshness) },
      text: salesText(answer, head, args.group_by, freshness.linesPending),
    };
  },
});
