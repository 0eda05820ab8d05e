// report_received: payments dated in a range, per currency, grouped as asked, with what they paid.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import { counted } from '../../core/counted.js';
import { checkRangeRequest, rangeWords, resolveRange } from '../dates.js';
import {
  asOfFields,
  asOfLine,
  freshBooks,
  limit,
  offsetArg,
  pageOf,
  paymentLine,
  rangeArgs,
  rangeReport,
  rows,
  shownOf,
} from '../fresh.js';
import { answerReceived, RECEIVED_GROUPS, type ReceivedAnswer } from './figures.js';

function receivedText(a: ReceivedAnswer, head: string, groupBy: string | undefined, offset: number): string {
  const out = [head];
  if (a.totals.length === 0) out.push('No payments in this range.');
  for (const t of a.totals)
    out.push(`Total: ${t.currency} ${counted(t.count, 'payment')}, ${t.amount} (allocated to invoices ${t.allocated})`);
  if (groupBy) {
    out.push(`By ${groupBy}${shownOf(a.groups.length, a.groups_left_out)}:`);
    for (const g of a.groups)
      out.push(
        `- ${g.label}${groupBy === 'customer' ? ` (customer ${g.key})` : ''}: ${g.currency} ${counted(g.count, 'payment')}, ${g.amount}`,
      );
  }
  out.push(`Payments, newest first${pageOf(a.payments.length, a.payments_left_out, offset)}:`);
  for (const p of a.payments) {
    const paid = p.paid.map((x) => `${x.invoice_number} (#${x.invoice_id}) ${x.amount}`).join(', ');
    out.push(paymentLine(p, ` ${p.customer_name} (${p.customer_id})`, paid ? ` paid ${paid}` : ', unallocated'));
  }
  return out.join('\n');
}

export const reportReceived = defineTool({
  name: 'report_received',
  title: 'Money received',
  description: 'Payments by payment date, exact per currency, grouped by period, method or customer, with the invoices each paid.',
  toolset: 'payments',
  scope: 'payments.read',
  books: true,
  input: z.object({
    ...rangeArgs,
    group_by: z.enum(RECEIVED_GROUPS).optional(),
    customer_id: z.number().int().positive().optional().describe('From find_records'),
    limit: limit(400, 20).describe('Groups per currency, and payments'),
    offset: offsetArg('Payments'),
  }),
  output: z.object({
    ...rangeReport,
    payments: rows,
    payments_left_out: z.number().int(),
  }),
  annotations: READ_HINTS,
  view: 'report-chart',
  async handler(ctx, args) {
    checkRangeRequest(args);
    const { read, freshness } = await freshBooks(ctx, ['payments']);
    const range = resolveRange(args, freshness.today);
    const payments = await read.payments({ from: range.from, to: range.to, ...(args.customer_id ? { customerId: args.customer_id } : {}) });
    const answer = answerReceived(payments, {
      range,
      customerId: args.customer_id,
      groupBy: args.group_by,
      limit: args.limit,
      offset: args.offset,
    });
    const head = `Payments dated ${rangeWords(args, range)}${args.customer_id ? ` from customer ${args.customer_id}` : ''}. ${asOfLine(freshness)}`;
    return { structured: { ...asOfFields(freshness), ...range, ...answer }, text: receivedText(answer, head, args.group_by, args.offset) };
  },
});
