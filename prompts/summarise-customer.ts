import { customerArgument } from './complete-customer.js';
import * as z from 'zod/v4';
import { definePrompt } from './define.js';

export const summariseCustomerPrompt = definePrompt({
  name: 'summarise_customer',
  title: 'Summarise a customer',
  description: 'Contact details, invoices, balance owed, payments and quotes of one customer.',
  args: (ctx) => z.object({ customer: customerArgument(ctx, 'Customer name or id') }),
  text: ({ customer }) =>
    [
      `Summarise the customer "${customer}".`,
      'Find them with list_customers (search) or get_customer. Then use list_invoices and list_payments with their',
      'customer_id (all pages) and list_quotes. Report: contact details; invoices by status with totals per',
      'currency; the balance still owed and what is overdue; the last payments; open quotes. Amounts exactly as',
      'given, with their currency.',
    ].join('\n'),
});
