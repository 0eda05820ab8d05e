// The summarise_customer prompt: one customer's details, balance, unpaid invoices, payments and open quotes.
import * as z from 'zod/v4';
import { customerArgument } from './complete-customer.js';
import { definePrompt } from './define.js';

export const summariseCustomerPrompt = definePrompt({
  name: 'summarise_customer',
  title: 'Summarise a customer',
  description: 'Contact details, balance owed, unpaid invoices, latest payments and open quotes of one customer.',
  tools: ['get_customer', 'list_invoices'],
  args: (ctx) => z.object({ customer: customerArgument(ctx, 'Customer name or id') }),
  text: ({ customer }, books) =>
    [
      `Summarise the customer "${customer}".`,
      ...(books
        ? [
            `Call report_customer with ${/^\d+$/.test(customer) ? `customer_id=${customer}` : `search="${customer}"`}: balance per currency, unpaid invoices with their age, latest payments`,
            'and open quotes, exact. If it names several customers, ask which one. get_customer (by its id) adds the address and phone.',
          ]
        : [
            'Find them with list_customers (search) or get_customer. Then use list_invoices and list_payments with their customer_id',
            '(all pages). Quotes have no customer filter: read list_quotes (all pages) and keep those of this customer.',
          ]),
      'Report: contact details; the balance still owed and what is past due; the last payments; open quotes. Amounts exactly as',
      'given, with their currency.',
    ].join('\n'),
});
