// What is owed: receivable invoices (not draft or void, balance above zero) summed per currency, aged by
// days past due as of the business's today, and by customer (largest first, ties to the lower id).
import type { InvoiceRow, OwingSums } from '../../store/types.js';
import { daysBetween } from '../dates.js';
import { type Amount, byCurrency, groupBy, isPositive, readAmount, Sum } from '../money.js';

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
  /** Invoices of that order to pass over first (the next page). */
  offset?: number | undefined;
  /** Only invoices owing at least this much (a decimal in the invoice's currency). */
  minBalance?: string | undefined;
}

export interface OwedAnswer {
  currencies: OwedCurrency[];
  customers: OwedCustomer[];
  invoices: OwedInvoice[];
  invoices_left_out: number;
}

/** A count and the exact sum of its balances. */
class Tally {
  count = 0;
  readonly sum = new Sum();
  add(balance: Amount, count = 1): void {
    this.count += count;
    this.sum.add(balance);
  }
  addTally(other: Tally): this {
    this.count += other.count;
    this.sum.addSum(other.sum);
    return this;
  }
  get figure(): CountedAmount {
    return { count: this.count, balance: this.sum.toString() };
  }
}

/** Days past due of each due date, worked out once: many invoices share one. */
function agesAsOf(today: string): (r: Pick<InvoiceRow, 'due_date'>) => number {
  const known = new Map<string, number>();
  return (r) => {
    let days = known.get(r.due_date);
    if (days === undefined) known.set(r.due_date, (days = daysPastDue(r, today)));
    return days;
  };
}

interface Owing {
  row: InvoiceRow;
  balance: Amount;
  days: number;
}

// Each balance is read once and added twice: to its age band and to its customer. The currency's whole
// and its past-due part are sums of the bands.
function currencyFigures(currency: string, rows: readonly Pick<Owing, 'days' | 'balance'>[], counts?: readonly number[]): OwedCurrency {
  const bands = new Map<AgeBand, Tally>(AGE_BANDS.map((band) => [band, new Tally()]));
  rows.forEach((o, i) => {
    bands.get(ageBand(o.days))?.add(o.balance, counts?.[i] ?? 1);
  });
  const aged = Object.fromEntries(AGE_BANDS.map((band) => [band, bands.get(band)?.figure])) as Record<AgeBand, CountedAmount>;
  const pastDue = AGE_BANDS.filter((b) => b !== 'not_due').reduce((t, b) => t.addTally(bands.get(b) ?? new Tally()), new Tally());
  const whole = new Tally().addTally(bands.get('not_due') ?? new Tally()).addTally(pastDue);
  return { currency, ...whole.figure, past_due: pastDue.figure, aged };
}

function topCustomers(currency: string, rows: readonly Owing[], top: number): OwedCustomer[] {
  const customers = [...groupBy(rows, (o) => o.row.customer_id)].map(([customerId, own]) => {
    const tally = new Tally();
    for (const o of own) tally.add(o.balance);
    return { customerId, own, tally };
  });
  // Compared as the decimals already summed; only the customers shown are written out.
  customers.sort((a, b) => b.tally.sum.decimal.compare(a.tally.sum.decimal) || a.customerId - b.customerId);
  return customers.slice(0, top).map(({ customerId, own, tally }) => ({
    customer_id: customerId,
    customer_name: own[0]?.row.customer_name ?? '',
    currency,
    ...tally.figure,
    // biome-ignore lint/complexity/useMathMinMax: ISO dates compared as strings, not numbers
    oldest_due: own.reduce((oldest, o) => (o.row.due_date < oldest ? o.row.due_date : oldest), own[0]?.row.due_date ?? ''),
  }));
}

const byDueThenId = (a: InvoiceRow, b: InvoiceRow): number => (a.due_date < b.due_date ? -1 : a.due_date > b.due_date ? 1 : a.id - b.id);

const listedInvoice = (r: InvoiceRow, days: number): OwedInvoice => ({
  id: r.id,
  number: r.number,
  customer_id: r.customer_id,
  customer_name: r.customer_name,
  status: r.status,
  due_date: r.due_date,
  days_past_due: Math.max(0, days),
  currency: r.currency,
  total: r.total,
  balance: r.balance,
});

/** What is owed, from the invoices as rows (summed here). */
export function answerOwed(invoices: readonly InvoiceRow[], q: OwedQuestion): OwedAnswer {
  const age = agesAsOf(q.today);
  const min = q.minBalance === undefined ? null : readAmount(q.minBalance);
  const owing: Owing[] = [];
  for (const row of invoices) {
    if (row.status === 'draft' || row.status === 'void') continue;
    if (q.customerId !== undefined && row.customer_id !== q.customerId) continue;
    const days = age(row);
    if (q.overDays !== undefined && days <= q.overDays) continue;
    const balance = readAmount(row.balance);
    if (balance.isPositive() && (min === null || balance.compare(min) >= 0)) owing.push({ row, balance, days });
  }
  const perCurrency = [...groupBy(owing, (o) => o.row.currency)].map(([currency, own]) => ({ currency, own }));
  perCurrency.sort(byCurrency);
  const listed = owing.map((o) => o.row).sort(byDueThenId);
  const offset = q.offset ?? 0;
  return {
    currencies: perCurrency.map(({ currency, own }) => currencyFigures(currency, own)),
    customers: perCurrency.flatMap(({ currency, own }) => topCustomers(currency, own, q.top)),
    invoices: listed.slice(offset, offset + q.invoiceLimit).map((r) => listedInvoice(r, age(r))),
    invoices_left_out: Math.max(0, listed.length - offset - q.invoiceLimit),
  };
}

/** The same answer from the store's sums (the question's customer and days already applied by the store). */
export function answerOwedFromSums(sums: OwingSums, q: OwedQuestion): OwedAnswer {
  const age = agesAsOf(q.today);
  const perCurrency = [...groupBy(sums.byDueDate, (d) => d.currency)].map(([currency, own]) => ({ currency, own }));
  perCurrency.sort(byCurrency);
  const count = sums.byDueDate.reduce((n, d) => n + d.count, 0);
  return {
    currencies: perCurrency.map(({ currency, own }) =>
      currencyFigures(
        currency,
        own.map((d) => ({ days: age(d), balance: readAmount(d.balance) })),
        own.map((d) => d.count),
      ),
    ),
    customers: perCurrency.flatMap(({ currency }) =>
      sums.topCustomers
        .filter((c) => c.currency === currency)
        .map((c) => ({
          customer_id: c.customer_id,
          customer_name: c.customer_name,
          currency,
          count: c.count,
          balance: new Sum().add(c.balance).toString(),
          oldest_due: c.oldest_due,
        })),
    ),
    invoices: sums.oldest.map((r) => listedInvoice(r, age(r))),
    invoices_left_out: Math.max(0, count - (q.offset ?? 0) - q.invoiceLimit),
  };
}
