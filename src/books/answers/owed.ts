// What is owed: receivable invoices (not draft or void, balance above zero) summed per currency, aged by
// days past due as of the business's today, and by customer (largest first, ties to the lower id).
import type { InvoiceRow } from '../types.js';
import { daysBetween } from './dates.js';
import { Sum, byCurrency, groupBy, isPositive } from './money.js';

export const AGE_BANDS = ['not_due', '1_30', '31_60', '61_90', 'over_90'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

export function ageBand(daysPastDue: number): AgeBand {
  if (daysPastDue <= 0) return 'not_due';
  if (daysPastDue <= 30) return '1_30';
  if (daysPastDue <= 60) return '31_60';
  if (daysPastDue <= 90) return '61_90';
  return 'over_90';
}

export const isReceivable = (inv: Pick<InvoiceRow, 'status' | 'balance'>): boolean =>
  inv.status !== 'draft' && inv.status !== 'void' && isPositive(inv.balance);

/** Days past due as of `today`: 0 or less while not yet due. Past due means due_date before today, whatever the status. */
export const daysPastDue = (inv: Pick<InvoiceRow, 'due_date'>, today: string): number => daysBetween(inv.due_date, today);

export interface CountedAmount {
  count: number;
  balance: string;
}

export interface OwedCurrency extends CountedAmount {
  currency: string;
  past_due: CountedAmount;
  aged: Record<AgeBand, CountedAmount>;
}

export interface OwedCustomer extends CountedAmount {
  customer_id: number;
  customer_name: string;
  currency: string;
  oldest_due: string;
}

export interface OwedInvoice {
  id: number;
  number: string;
  customer_id: number;
  customer_name: string;
  status: string;
  due_date: string;
  days_past_due: number;
  currency: string;
  total: string;
  balance: string;
}

export interface OwedQuestion {
  today: string;
  /** Only invoices more than this many days past due. */
  overDays?: number | undefined;
  customerId?: number | undefined;
  /** Customers to show per currency. */
  top: number;
  /** Invoices to list, most days past due first. */
  invoiceLimit: number;
}

export interface OwedAnswer {
  currencies: OwedCurrency[];
  customers: OwedCustomer[];
  invoices: OwedInvoice[];
  invoices_left_out: number;
}

function counted(rows: readonly InvoiceRow[]): CountedAmount {
  const sum = new Sum();
  for (const r of rows) sum.add(r.balance);
  return { count: rows.length, balance: sum.toString() };
}

function currencyFigures(currency: string, rows: readonly InvoiceRow[], today: string): OwedCurrency {
  // Each row's age once; then one pass per figure.
  const bands = new Map<AgeBand, InvoiceRow[]>(AGE_BANDS.map((band) => [band, []]));
  const pastDue: InvoiceRow[] = [];
  for (const r of rows) {
    const days = daysPastDue(r, today);
    bands.get(ageBand(days))?.push(r);
    if (days > 0) pastDue.push(r);
  }
  const aged = Object.fromEntries(AGE_BANDS.map((band) => [band, counted(bands.get(band) ?? [])])) as Record<AgeBand, CountedAmount>;
  return { currency, ...counted(rows), past_due: counted(pastDue), aged };
}

function topCustomers(currency: string, rows: readonly InvoiceRow[], top: number): OwedCustomer[] {
  const customers = [...groupBy(rows, (r) => r.customer_id)].map(([customerId, own]) => {
    const sum = new Sum();
    for (const r of own) sum.add(r.balance);
    const row: OwedCustomer = {
      customer_id: customerId,
      customer_name: own[0]?.customer_name ?? '',
      currency,
      count: own.length,
      balance: sum.toString(),
      oldest_due: own.map((r) => r.due_date).sort()[0] ?? '',
    };
    return { row, exact: sum.decimal };
  });
  // Compared as the decimals already summed, not parsed again for every comparison.
  customers.sort((a, b) => b.exact.comparedTo(a.exact) || a.row.customer_id - b.row.customer_id);
  return customers.slice(0, top).map((c) => c.row);
}

export function answerOwed(invoices: readonly InvoiceRow[], q: OwedQuestion): OwedAnswer {
  const rows = invoices.filter(
    (r) =>
      isReceivable(r) &&
      (q.customerId === undefined || r.customer_id === q.customerId) &&
      (q.overDays === undefined || daysPastDue(r, q.today) > q.overDays),
  );
  const perCurrency = [...groupBy(rows, (r) => r.currency)].map(([currency, own]) => ({ currency, own }));
  perCurrency.sort(byCurrency);
  const listed = [...rows].sort((a, b) => a.due_date.localeCompare(b.due_date) || a.id - b.id);
  return {
    currencies: perCurrency.map(({ currency, own }) => currencyFigures(currency, own, q.today)),
    customers: perCurrency.flatMap(({ currency, own }) => topCustomers(currency, own, q.top)),
    invoices: listed.slice(0, q.invoiceLimit).map((r) => ({
      id: r.id,
      number: r.number,
      customer_id: r.customer_id,
      customer_name: r.customer_name,
      status: r.status,
      due_date: r.due_date,
      days_past_due: Math.max(0, daysPastDue(r, q.today)),
      currency: r.currency,
      total: r.total,
      balance: r.balance,
    })),
    invoices_left_out: Math.max(0, listed.length - q.invoiceLimit),
  };
}
