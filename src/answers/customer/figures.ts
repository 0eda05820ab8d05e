// One customer: what they owe per currency (and how much of it is past due), their unpaid invoices with
// their age, their latest payments and their open quotes.
import type { CustomerRow, InvoiceRow, PaymentRow, QuoteRow } from '../../store/types.js';
import { byCurrency, groupBy, Sum } from '../money.js';
import { daysPastDue, isReceivable } from '../owed/figures.js';
import { OPEN_QUOTE_STATUSES } from '../quotes/figures.js';

export interface CustomerBalance {
  currency: string;
  count: number;
  balance: string;
  past_due: string;
}

export interface CustomerAnswer {
  customer: Pick<CustomerRow, 'id' | 'code' | 'name' | 'email' | 'status'>;
  balances: CustomerBalance[];
  unpaid: {
    id: number;
    number: string;
    status: string;
    issue_date: string;
    due_date: string;
    days_past_due: number;
    currency: string;
    total: string;
    balance: string;
  }[];
  payments: { id: number; payment_date: string; method: string; currency: string; amount: string; paid: string[] }[];
  open_quotes: { id: number; number: string; status: string; valid_until: string; currency: string | null; total: string }[];
}

export interface CustomerBooks {
  invoices: readonly InvoiceRow[];
  payments: readonly PaymentRow[];
  quotes: readonly QuoteRow[];
}

function balances(unpaid: readonly InvoiceRow[], today: string): CustomerBalance[] {
  return [...groupBy(unpaid, (r) => r.currency)]
    .map(([currency, own]) => {
      const balance = new Sum();
      const pastDue = new Sum();
      for (const r of own) {
        balance.add(r.balance);
        if (daysPastDue(r, today) > 0) pastDue.add(r.balance);
      }
      return { currency, count: own.length, balance: balance.toString(), past_due: pastDue.toString() };
    })
    .sort(byCurrency);
}

export function answerCustomer(customer: CustomerRow, books: CustomerBooks, today: string, recentPayments: number): CustomerAnswer {
  const unpaid = books.invoices
    .filter((r) => r.customer_id === customer.id && isReceivable(r))
    .sort((a, b) => a.due_date.localeCompare(b.due_date) || a.id - b.id);
  const payments = books.payments
    .filter((p) => p.customer_id === customer.id)
    .sort((a, b) => b.payment_date.localeCompare(a.payment_date) || b.id - a.id)
    .slice(0, recentPayments);
  const quotes = books.quotes
    .filter((q) => q.customer_id === customer.id && (OPEN_QUOTE_STATUSES as readonly string[]).includes(q.status))
    .sort((a, b) => a.valid_until.localeCompare(b.valid_until) || a.id - b.id);
  const { id, code, name, email, status } = customer;
  return {
    customer: { id, code, name, email, status },
    balances: balances(unpaid, today),
    unpaid: unpaid.map((r) => ({
      id: r.id,
      number: r.number,
      status: r.status,
      issue_date: r.issue_date,
      due_date: r.due_date,
      days_past_due: Math.max(0, daysPastDue(r, today)),
      currency: r.currency,
      total: r.total,
      balance: r.balance,
    })),
    payments: payments.map((p) => ({
      id: p.id,
      payment_date: p.payment_date,
      method: p.method,
      currency: p.currency,
      amount: p.amount,
      paid: p.allocations.map((a) => `${a.invoice_number} ${a.amount}`),
    })),
    open_quotes: quotes.map((q) => ({
      id: q.id,
      number: q.number,
      status: q.status,
      valid_until: q.valid_until,
      currency: q.currency,
      total: q.total,
    })),
  };
}
