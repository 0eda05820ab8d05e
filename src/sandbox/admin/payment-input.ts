// Validation of an admin payment: amount, method, and allocations that the invoices can take.

import { bodyDecimal, Decimal, toAmount } from '../amounts.js';
import { FieldErrorList } from '../api-error.js';
import { type Invoice, PAYMENT_METHODS } from '../books.js';
import type { Books } from '../collection.js';

export interface PaymentInput {
  customerId: number;
  amount: string;
  currency: string;
  method: string;
  reference: string;
  allocations: { invoice: Invoice; amount: string }[];
}

function readAmount(raw: unknown, path: string, errors: FieldErrorList): string | null {
  const amount = bodyDecimal(raw);
  if (amount === null || amount.places > 2 || !amount.isPositive()) {
    errors.add(path, `${path} must be a positive decimal string with up to 2 places, such as "120.50"`);
    return null;
  }
  return toAmount(amount);
}

function readAllocations(body: Record<string, unknown>, books: Books, customerId: number, errors: FieldErrorList) {
  const out: { invoice: Invoice; amount: string }[] = [];
  const raw = body.allocations ?? [];
  if (!Array.isArray(raw)) {
    errors.add('allocations', 'allocations must be an array of {invoice_id, amount}');
    return out;
  }
  for (const [i, a] of (raw as unknown[]).entries()) {
    const at = `allocations.${i}`;
    const item = (a && typeof a === 'object' ? a : {}) as Record<string, unknown>;
    const invoice = typeof item.invoice_id === 'number' ? books.invoices.get(item.invoice_id) : undefined;
    const amount = readAmount(item.amount, `${at}.amount`, errors);
    if (!invoice) {
      errors.add(`${at}.invoice_id`, `${at}.invoice_id must name an invoice of this business`);
      continue;
    }
    if (invoice.customerId !== customerId) {
      errors.add(`${at}.invoice_id`, `${at}.invoice_id belongs to another customer`);
      continue;
    }
    if (['draft', 'void', 'paid'].includes(invoice.status)) {
      errors.add(`${at}.invoice_id`, `invoice ${invoice.number} is ${invoice.status} and cannot take a payment`);
      continue;
    }
    if (out.some((o) => o.invoice === invoice)) {
      errors.add(`${at}.invoice_id`, `invoice ${invoice.number} appears twice`);
      continue;
    }
    if (amount !== null && Decimal.parse(amount).gt(invoice.balance)) {
      errors.add(`${at}.amount`, `${at}.amount is more than invoice ${invoice.number}'s balance of ${invoice.balance}`);
      continue;
    }
    if (amount !== null) out.push({ invoice, amount });
  }
  return out;
}

export function readPayment(body: Record<string, unknown>, books: Books, baseCurrency: string): PaymentInput {
  const errors = new FieldErrorList();
  const customerId = typeof body.customer_id === 'number' ? body.customer_id : 0;
  if (!books.customers.get(customerId)) errors.add('customer_id', 'customer_id must name a customer of this business');
  const amount = readAmount(body.amount, 'amount', errors);
  if (typeof body.method !== 'string' || !(PAYMENT_METHODS as readonly string[]).includes(body.method)) {
    errors.add('method', `method must be one of: ${PAYMENT_METHODS.join(', ')}`);
  }
  if (body.reference !== undefined && typeof body.reference !== 'string') errors.add('reference', 'reference must be a string');
  const allocations = readAllocations(body, books, customerId, errors);
  const currencies = new Set(allocations.map((a) => a.invoice.currency));
  if (currencies.size > 1) errors.add('allocations', 'all allocated invoices must be in one currency');
  if (amount !== null && Decimal.sum(allocations.map((a) => a.amount)).gt(amount)) {
    errors.add('allocations', 'the allocations add up to more than the amount');
  }
  errors.throwIfAny();
  return {
    customerId,
    amount: amount as string,
    currency: [...currencies][0] ?? baseCurrency,
    method: body.method as string,
    reference: typeof body.reference === 'string' && body.reference !== '' ? body.reference : `PAY-${Date.now()}`,
    allocations,
  };
}
