// Time moves statuses, as the real service does on its own at the business's midnight: an issued, sent or
// viewed invoice with a balance becomes overdue the day after its due date; a draft, sent or viewed quote
// becomes expired the day after its validity date. The service looks at its books at each midnight, so a
// change is dated the first midnight after both the record's last day and its last change: `updated_since`
// finds it, and no change is dated in the future; `part_paid` stays as it is (its balance says the rest). No event is sent.

import { Decimal } from './amounts.js';
import type { InvoiceStatus, QuoteStatus } from './books.js';
import type { Books } from './collection.js';
import { addDays, localDate, zonedMidnight } from './time.js';

export const BECOME_OVERDUE: ReadonlySet<InvoiceStatus> = new Set(['issued', 'sent', 'viewed']);
export const BECOME_EXPIRED: ReadonlySet<QuoteStatus> = new Set(['draft', 'sent', 'viewed']);

type Midnights = (date: string) => number;

/** The zone's midnight at the end of a date, remembered per date for one pass. */
function midnights(timeZone: string): Midnights {
  const memo = new Map<string, number>();
  return (date) => {
    let ms = memo.get(date);
    if (ms === undefined) {
      ms = zonedMidnight(addDays(date, 1), timeZone);
      memo.set(date, ms);
    }
    return ms;
  };
}

/** When a record whose last good day is `lastDay` moves: the first midnight after that day and its last change. */
function changeTime(lastDay: string, updatedMs: number, timeZone: string, after: Midnights): number {
  return Math.max(after(lastDay), after(localDate(updatedMs, timeZone)));
}

/** Applies the rules for the business day `today` to one set of books; returns how many records moved. */
export function applyTimeRules(books: Books, today: string, timeZone: string): number {
  const after = midnights(timeZone);
  // A record changed today waits for the next midnight's look.
  const latest = zonedMidnight(today, timeZone);
  let moved = 0;
  for (const invoice of books.invoices.items) {
    if (!BECOME_OVERDUE.has(invoice.status) || invoice.due_date >= today || !Decimal.parse(invoice.balance).isPositive()) continue;
    const at = changeTime(invoice.due_date, invoice.updatedMs, timeZone, after);
    if (at > latest) continue;
    invoice.status = 'overdue';
    books.invoices.touch(invoice, at);
    moved += 1;
  }
  for (const quote of books.quotes.items) {
    if (!BECOME_EXPIRED.has(quote.status) || quote.valid_until >= today) continue;
    const at = changeTime(quote.valid_until, quote.updatedMs, timeZone, after);
    if (at > latest) continue;
    quote.status = 'expired';
    books.quotes.touch(quote, at);
    moved += 1;
  }
  return moved;
}
