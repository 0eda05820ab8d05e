import * as z from 'zod/v4';
import { definePrompt } from './define.js';

export const reviewOverduePrompt = definePrompt({
  name: 'review_overdue_invoices',
  title: 'Review overdue invoices',
  description: 'Who owes what, oldest first, with what each customer has paid lately.',
  args: () =>
    z.object({
      min_days: z.string().regex(/^\d*$/, 'a whole number of days').optional().describe('Only invoices at least this many days past due'),
    }),
  text: ({ min_days }) =>
    [
      `Review the overdue invoices${min_days ? ` at least ${min_days} days past their due date` : ''}.`,
      'Use list_invoices with status=overdue (all pages, per_page=100), and also status=part_paid for balances',
      'still owed. Group by customer: total balance per currency, the oldest due date, and how many invoices.',
      'For the largest debtors, check list_payments with their customer_id for recent payments.',
      'Report amounts exactly as the service gives them, with their currency; do not round or convert currencies.',
    ].join('\n'),
});
