// Payments: list and get, with the invoices each one paid.
import * as z from 'zod/v4';
import { type Payment, PaymentSchema } from '../src/api/schemas.js';
import { defineTool, READ_HINTS } from './define.js';
import { money } from './format.js';
import { getHandler, listHandler } from './handlers.js';
import { pageMeta, paging, recordId } from './params.js';

const paymentLine = (p: Payment): string => {
  const paid = p.allocations.map((a) => `${a.invoice_number} (#${a.invoice_id}) ${money(p.currency, a.amount)}`).join('; ');
  return (
    `#${p.id} ${p.payment_date} ${money(p.currency, p.amount)} by ${p.method} from ${p.customer.name} (customer ${p.customer.id})` +
    `${p.reference ? ` ref ${p.reference}` : ''}${paid ? ` -> ${paid}` : ''}`
  );
};

export const listPayments = defineTool({
  name: 'list_payments',
  title: 'List payments',
  description: 'Payments received, oldest first, with the invoices each paid.',
  toolset: 'payments',
  scope: 'payments.read',
  input: z.object({ ...paging, customer_id: recordId('list_customers').optional() }),
  output: z.object({ data: z.array(PaymentSchema), meta: pageMeta }),
  annotations: READ_HINTS,
  handler: listHandler<Payment>('payments', paymentLine),
});

export const getPayment = defineTool({
  name: 'get_payment',
  title: 'Get a payment',
  description: 'One payment and its allocations to invoices.',
  toolset: 'payments',
  scope: 'payments.read',
  input: z.object({ id: recordId('list_payments') }),
  output: PaymentSchema,
  annotations: READ_HINTS,
  handler: getHandler<Payment>('payments', paymentLine),
});
