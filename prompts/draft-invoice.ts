// The draft_invoice prompt: a description of work done turned into a draft invoice for a person to review.
import * as z from 'zod/v4';
import { customerArgument } from './complete-customer.js';
import { definePrompt } from './define.js';

export const draftInvoicePrompt = definePrompt({
  name: 'draft_invoice',
  title: 'Draft an invoice from a description of work',
  description: 'Turns a description of work done into a draft invoice for a person to review and send.',
  tools: ['create_draft_invoice', 'list_customers'],
  args: (ctx) =>
    z.object({
      customer: customerArgument(ctx, 'Customer name or id'),
      work: z.string().min(1).describe('The work done, with quantities and prices where known'),
    }),
  text: ({ customer, work }, books) =>
    [
      `Draft an invoice for the customer "${customer}" for this work:`,
      '',
      work,
      '',
      books
        ? `Steps: call find_records once with search: ["${customer}", and each product or service the work names], to get the customer id and the products.`
        : 'Steps: find the customer with list_customers (search by part of the name); products have no name search, so look for them with list_products (sku, barcode, or all pages).',
      'Lines that match a product carry its product_id (and so its price and tax); anything else gets a line with description and',
      'unit_price (a decimal string). Show me the lines and the subtotal, then call create_draft_invoice once, with an idempotency_key.',
      'The result is a draft: a person in the business reviews and sends it; nothing is sent to the customer.',
    ].join('\n'),
});
