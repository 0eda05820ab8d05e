// report_owed: what is owed per currency, aged, by customer, and the invoices behind it.

import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import { money } from '../../../tools/format.js';
import { counted } from '../../core/counted.js';
import { amountArg, asOf, asOfFields, asOfLine, currencyArg, freshBooks, limit, offsetArg, pageOf, rows } from '../fresh.js';
import { AGE_BANDS, type OwedAnswer, type OwedCurrency } from './figures.js';
import { readOwed } from './query.js';

const BAND_WORDS: Record<(typeof AGE_BANDS)[number], string> = {
  not_due: 'not yet due',
  '1_30': '1-30 days',
  '31_60': '31-60',
  '61_90': '61-90',
  over_90: 'over 90',
};

const currencyLine = (c: OwedCurrency): string =>
  `${c.currency}: ${counted(c.count, 'invoice')}, ${money(c.currency, c.balance)} owed; past due ${c.past_due.count}, ${c.past_due.balance}. Aged: ` +
  AGE_BANDS.map((b) => `${BAND_WORDS[b]} ${c.aged[b].count} ${c.aged[b].balance}`).join('; ');

function owedText(a: OwedAnswer, head: string, offset: number): string {
  if (a.currencies.length === 0) return `${head}\nNothing is owed.`;
  return [
    head,
    ...a.currencies.map(currencyLine),
    'Top customers:',
    ...a.customers.map(
      (c) =>
        `- customer ${c.customer_id} ${c.customer_name}: ${money(c.currency, c.balance)}, ${counted(c.count, 'invoice')}, oldest due ${c.oldest_due}`,
    ),
    `Invoices, oldest due first${pageOf(a.invoices.length, a.invoices_left_out, offset)}:`,
    ...a.invoices.map(
      (i) =>
        `- #${i.id} ${i.number} ${i.customer_name} (${i.customer_id}) ${i.status}, due ${i.due_date}` +
        `${i.days_past_due > 0 ? ` (${counted(i.days_past_due, 'day')} past)` : ''}, balance ${money(i.currency, i.balance)} of ${i.total}`,
    ),
  ].join('\n');
}

export const reportOwed = defineTool({
  name: 'report_owed',
  title: 'What is owed',
  description:
    'Receivables, exact per currency: aged by days past due, top customers, oldest invoices. Receivable: not draft or void, balance > 0.',
  toolset: 'invoices',
  scope: 'invoices.read',
  books: true,
  input: z.object({
    customer_id: z.number().int().positive().optional().describe('From find_records'),
    currency: currencyArg.optional(),
    over_days: z.number().int().min(0).max(3660).optional().describe('More than N days past due'),
    min_balance: amountArg.optional().describe('Only invoices owing at least this'),
    top: z.number().int().min(1).max(100).default(10).describe('Customers per currency'),
    limit: limit(200, 20),
    offset: offsetArg('Invoices'),
  }),
  output: z.object({
    ...asOf,
    currencies: rows,
    customers: rows,
    invoices: rows,
    invoices_left_out: z.number().int(),
  }),
  annotations: READ_HINTS,
  view: 'report-chart',
  async handler(ctx, args) {
    const { snapshot, freshness } = await freshBooks(ctx, ['invoices']);
    const question = {
      today: freshness.today,
      overDays: args.over_days,
      customerId: args.customer_id,
      top: args.top,
      invoiceLimit: args.limit,
      offset: args.offset,
      minBalance: args.min_balance,
    };
    const answer = await readOwed(snapshot, { ...question, currency: args.currency });
    const scope = [
      args.customer_id ? `customer ${args.customer_id}` : '',
      args.currency ? `${args.currency} only` : '',
      args.over_days !== undefined ? `more than ${counted(args.over_days, 'day')} past due` : '',
      args.min_balance !== undefined ? `owing at least ${args.min_balance}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const head = `Owed${scope ? ` (${scope})` : ''}. ${asOfLine(freshness)}`;
    return { structured: { ...asOfFields(freshness), ...answer }, text: owedText(answer, head, args.offset) };
  },
});
