// Money received: payments dated in a range, summed per currency (and how much of it went to invoices),
// grouped by method, customer or period, with the newest payments and the invoices each paid.
import type { PaymentRow } from '../../store/types.js';
import { type DateRange, inRange, PERIODS, type Period, periodOf } from '../dates.js';
import { byCurrency, groupBy, keyOf, rankedPerCurrency, readAmount, Sum } from '../money.js';

export const RECEIVED_GROUPS = [...PERIODS, 'method', 'customer'] as const;
export type ReceivedGroupBy = (typeof RECEIVED_GROUPS)[number];

export interface ReceivedFigures {
  currency: string;
  count: number;
  amount: string;
}

export interface ReceivedTotals extends ReceivedFigures {
  /** The part of the amount allocated to invoices. */
  allocated: string;
}

export interface ReceivedGroup extends ReceivedFigures {
  key: string | number;
  label: string;
}

export interface ReceivedPayment {
  id: number;
  payment_date: string;
  customer_id: number;
  customer_name: string;
  method: string;
  currency: string;
  amount: string;
  paid: { invoice_id: number; invoice_number: string; amount: string }[];
}

export interface ReceivedQuestion {
  range: DateRange;
  customerId?: number | undefined;
  groupBy?: ReceivedGroupBy | undefined;
  /** Groups per currency, and payments listed. */
  limit: number;
  /** Payments, newest first, to pass over before the `limit` listed (the next page). */
  offset?: number | undefined;
}

export interface ReceivedAnswer {
  totals: ReceivedTotals[];
  groups: ReceivedGroup[];
  groups_left_out: number;
  payments: ReceivedPayment[];
  payments_left_out: number;
}

function totalsOf(currency: string, rows: readonly PaymentRow[]): ReceivedTotals {
  const amount = new Sum();
  const allocated = new Sum();
  for (const p of rows) {
    amount.add(p.amount);
    for (const a of p.allocations) allocated.add(a.amount);
  }
  return { currency, count: rows.length, amount: amount.toString(), allocated: allocated.toString() };
}

function groupKey(p: PaymentRow, by: ReceivedGroupBy): [string | number, string] {
  if (by === 'method') return [p.method, p.method];
  if (by === 'customer') return [p.customer_id, p.customer_name];
  const period = periodOf(p.payment_date, by as Period);
  return [period, by === 'week' ? `week of ${period}` : period];
}

/** Periods: every one, in date order; other groups ranked within each currency by amount, `limit` of each. */
function groups(rows: readonly PaymentRow[], by: ReceivedGroupBy, limit: number): { shown: ReceivedGroup[]; leftOut: number } {
  const found = [...groupBy(rows, (p) => keyOf(groupKey(p, by)[0], p.currency)).values()].map((own) => {
    const first = own[0] as PaymentRow;
    const [key, label] = groupKey(first, by);
    const { allocated: _allocated, ...figures } = totalsOf(first.currency, own);
    return { key, label, ...figures };
  });
  if ((PERIODS as readonly string[]).includes(by)) {
    const sorted = found.sort((a, b) => String(a.key).localeCompare(String(b.key)) || byCurrency(a, b));
    return { shown: sorted.slice(0, limit), leftOut: Math.max(0, sorted.length - limit) };
  }
  return rankedPerCurrency(found, (g) => readAmount(g.amount), limit);
}

export function answerReceived(payments: readonly PaymentRow[], q: ReceivedQuestion): ReceivedAnswer {
  const rows = payments.filter((p) => inRange(p.payment_date, q.range) && (q.customerId === undefined || p.customer_id === q.customerId));
  const grouped = q.groupBy ? groups(rows, q.groupBy, q.limit) : { shown: [], leftOut: 0 };
  const newest = [...rows].sort((a, b) => b.payment_date.localeCompare(a.payment_date) || b.id - a.id);
  const offset = q.offset ?? 0;
  return {
    totals: [...groupBy(rows, (p) => p.currency)].map(([currency, own]) => totalsOf(currency, own)).sort(byCurrency),
    groups: grouped.shown,
    groups_left_out: grouped.leftOut,
    payments: newest.slice(offset, offset + q.limit).map((p) => ({
      id: p.id,
      payment_date: p.payment_date,
      customer_id: p.customer_id,
      customer_name: p.customer_name,
      method: p.method,
      currency: p.currency,
      amount: p.amount,
      paid: p.allocations.map((a) => ({ invoice_id: a.invoice_id, invoice_number: a.invoice_number, amount: a.amount })),
    })),
    payments_left_out: Math.max(0, newest.length - offset - q.limit),
  };
}
