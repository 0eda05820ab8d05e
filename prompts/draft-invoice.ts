import * as z from 'zod/v4';
import { customerArgument } from './complete-customer.js';
import { definePrompt } from './define.js';

export const draftInvoicePrompt = definePrompt({
  name: 'draft_invoice',
  title: 'Draft an invoice from a description of work',
  description: 'Turns a description of work done into a draft invoice for a person to review and send.',
  args: (ctx) =>
    z.object({
      customer: customerArgument(ctx, 'Customer name or id'),
      work: z.string().min(1).describe('The work done, with quantities and prices where known'),
    }),
  text: ({ customer, work }) =>
    [
      `Draft an invoice for the customer "${customer}" for this work:`,
      '',
      work,
      '',
      'Steps: find the customer with list_customers (search by name) or get_customer; look for matching products',
      'with list_products (sku or name) so lines carry the product and its price and tax; for anything else use a',
      'line with description and unit_price (a decimal string). Show me the lines and the subtotal, then call',
      'create_draft_invoice once, with an idempotency_key. The result is a draft: a person in the business reviews',
      'and sends it; nothing is sent to the customer.',
    ].join('\n'),
});
