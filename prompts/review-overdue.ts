// The review_overdue_invoices prompt: who owes what past the due date, and what each has paid lately.
import * as z from 'zod/v4';
import { counted } from '../src/core/counted.js';
import { definePrompt } from './define.js';

/** "At least N days past due" is "more than N - 1"; none given: everything past due. */
const overDays = (minDays: string | undefined): number => Math.max(0, Number(minDays || '1') - 1);

export const reviewOverduePrompt = definePrompt({
  name: 'review_overdue_invoices',
  title: 'Review overdue invoices',
  description: 'Who owes what past the due date, oldest first, with what each customer has paid lately.',
  tools: ['list_invoices'],
  args: () =>
    z.object({
      min_days: z.string().regex(/^\d*$/, 'a whole number of days').optional().describe('Only invoices at least this many days past due'),
    }),
  text: ({ min_days }, books) => {
    const days = overDays(min_days);
    const head = `Review the invoices past their due date${min_days ? ` by at least ${counted(Number(min_days), 'day')}` : ''}. Past due means the due date is before today, whatever the status says.`;
    const how = books
      ? [
          `Call report_owed with over_days=${days}: it sums the balances exactly per currency, ages them and names the largest debtors.`,
          'For each of the largest debtors, report_customer (by customer id) gives their unpaid invoices and latest payments.',
        ]
      : [
          'Use list_invoices (all pages, per_page=100) and keep the invoices whose status is not draft, void or paid, whose balance',
          `is above zero and whose due_date is more than ${counted(days, 'day')} before today. Group by customer: total balance per currency, the`,
          'oldest due date, and how many invoices. For the largest debtors, check list_payments with their customer_id.',
        ];
    return [head, ...how, 'Report amounts exactly as given, with their currency; never add amounts of different currencies.'].join('\n');
  },
});
