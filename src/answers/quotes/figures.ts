// Open quotes (draft, sent or viewed: the ones still awaiting the customer, which time moves to expired),
// their value per currency, and which of them expire within N days of today.
import type { QuoteRow } from '../../store/types.js';
import { addDays, daysBetween } from '../dates.js';
import { byCurrency, groupBy, Sum } from '../money.js';

export const OPEN_QUOTE_STATUSES = ['draft', 'sent', 'viewed'] as const;

export interface QuoteFigures {
  /** null: the business's base currency (the service sends none on quotes). */
  currency: string | null;
  count: number;
  value: string;
}

export interface OpenQuote {
  id: number;
  number: string;
  status: string;
  customer_id: number;
  customer_name: string;
  valid_until: string;
  days_left: number;
  currency: string | null;
  total: string;
}

export interface QuotesQuestion {
  today: string;
  /** Also report the quotes that expire within this many days (valid_until from today to today + N). */
  expiringDays?: number | undefined;
  customerId?: number | undefined;
  limit: number;
  /** Quotes of the list to skip: the next page. */
  offset?: number | undefined;
}

export interface QuotesAnswer {
  open: QuoteFigures[];
  expiring: QuoteFigures[] | null;
  quotes: OpenQuote[];
  quotes_left_out: number;
}

const isOpen = (q: QuoteRow): boolean => (OPEN_QUOTE_STATUSES as readonly string[]).includes(q.status);

function figures(rows: readonly QuoteRow[]): QuoteFigures[] {
  return [...groupBy(rows, (q) => q.currency)]
    .map(([currency, own]) => {
      const value = new Sum();
      for (const q of own) value.add(q.total);
      return { currency, count: own.length, value: value.toString() };
    })
    .sort(byCurrency);
}

export function answerQuotes(quotes: readonly QuoteRow[], q: QuotesQuestion): QuotesAnswer {
  const open = quotes.filter((row) => isOpen(row) && (q.customerId === undefined || row.customer_id === q.customerId));
  const horizon = q.expiringDays === undefined ? null : addDays(q.today, q.expiringDays);
  const expiring = horizon === null ? null : open.filter((row) => row.valid_until >= q.today && row.valid_until <= horizon);
  const offset = q.offset ?? 0;
  const listed = [...(expiring ?? open)].sort((a, b) => a.valid_until.localeCompare(b.valid_until) || a.id - b.id);
  return {
    open: figures(open),
    expiring: expiring === null ? null : figures(expiring),
    quotes: listed.slice(offset, offset + q.limit).map((row) => ({
      id: row.id,
      number: row.number,
      status: row.status,
      customer_id: row.customer_id,
      customer_name: row.customer_name,
      valid_until: row.valid_until,
      days_left: daysBetween(q.today, row.valid_until),
      currency: row.currency,
      total: row.total,
    })),
    quotes_left_out: Math.max(0, listed.length - offset - q.limit),
  };
}
