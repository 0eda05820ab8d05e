// The sample books are anchored to the sandbox's start day: on any day, through the raw API, there is last
// month's invoicing and cash, till sales in the last 30 days, open quotes about to expire, unpaid invoices
// in every age band, and no past-due invoice still saying issued, sent or viewed. The same seed gives the
// same records at the same distance from today whichever day the sandbox starts on.
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, cents, dayNumber, type Json, listAll, plusDays, type SandboxHandle, signIn, start } from './sandbox-http.js';
import { INVOICE_STATUSES, PAYMENT_METHODS, QUOTE_STATUSES } from './sandbox-records.js';

const DAYS = ['2026-11-01', '2027-03-15', '2030-01-31'];

function lastMonth(today: string): { from: string; to: string } {
  const [y, m] = today.split('-').map(Number) as [number, number];
  const first = new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10);
  const last = new Date(Date.UTC(y, m - 1, 0)).toISOString().slice(0, 10);
  return { from: first, to: last };
}

const BANDS: [string, number, number][] = [
  ['not yet due', -Infinity, 0],
  ['1-30', 1, 30],
  ['31-60', 31, 60],
  ['61-90', 61, 90],
  ['over 90', 91, Infinity],
];

interface Books {
  today: string;
  invoices: Json[];
  quotes: Json[];
  payments: Json[];
}

const seen = new Map<string, Books>();

async function readBooks(today: string): Promise<Books> {
  const sb: SandboxHandle = await start({ today });
  try {
    const clock = await admin(sb, 'GET', '/clock');
    const session = await signIn(sb.baseUrl, sb.keys.test);
    const [invoices, quotes, payments] = await Promise.all(['invoices', 'quotes', 'payments'].map((r) => listAll(session, `/api/v1/${r}`)));
    return { today: clock.body.today, invoices: invoices as Json[], quotes: quotes as Json[], payments: payments as Json[] };
  } finally {
    await sb.close();
  }
}

beforeAll(async () => {
  for (const day of DAYS) seen.set(day, await readBooks(day));
}, 60_000);

describe.each(DAYS)('the sample books on %s', (day) => {
  let books: Books;
  beforeAll(() => {
    books = seen.get(day) as Books;
  });

  it('start on that day and end the day before, two years deep, over every status', () => {
    expect(books.today).toBe(day);
    const issued = books.invoices.map((i) => i.issue_date).sort();
    expect(issued.at(-1)).toBe(plusDays(day, -1));
    expect(dayNumber(day) - dayNumber(issued[0])).toBeGreaterThanOrEqual(700);
    for (const s of INVOICE_STATUSES)
      expect(
        books.invoices.some((i) => i.status === s),
        s,
      ).toBe(true);
    for (const s of QUOTE_STATUSES)
      expect(
        books.quotes.some((q) => q.status === s),
        s,
      ).toBe(true);
  });

  it('hold invoices issued last calendar month and payments received then by at least three methods', () => {
    const { from, to } = lastMonth(day);
    expect(books.invoices.filter((i) => i.issue_date >= from && i.issue_date <= to).length).toBeGreaterThanOrEqual(10);
    const methods = new Set(books.payments.filter((p) => p.payment_date >= from && p.payment_date <= to).map((p) => p.method));
    expect(methods.size).toBeGreaterThanOrEqual(3);
  });

  it('hold invoices, till sales and payments in every week of the last quarter, by every method over it', () => {
    for (let week = 0; week < 13; week++) {
      const from = plusDays(day, -7 * (week + 1));
      const to = plusDays(day, -7 * week - 1);
      const inWeek = (date: string): boolean => date >= from && date <= to;
      expect(
        books.invoices.some((i) => inWeek(i.issue_date) && i.sales_channel !== 'pos'),
        `invoices ${from}`,
      ).toBe(true);
      expect(
        books.invoices.some((i) => inWeek(i.issue_date) && i.sales_channel === 'pos'),
        `till sales ${from}`,
      ).toBe(true);
      expect(
        books.payments.some((p) => inWeek(p.payment_date)),
        `payments ${from}`,
      ).toBe(true);
    }
    const quarter = books.payments.filter((p) => p.payment_date >= plusDays(day, -91));
    expect(new Set(quarter.map((p) => p.method))).toEqual(new Set(PAYMENT_METHODS));
  });

  it('hold till sales in the last 30 days, and quotes open today that expire within 7 days', () => {
    const pos = books.invoices.filter((i) => i.sales_channel === 'pos' && i.issue_date >= plusDays(day, -30) && i.issue_date < day);
    expect(pos.length).toBeGreaterThanOrEqual(4);
    const open = books.quotes.filter((q) => ['draft', 'sent', 'viewed'].includes(q.status) && q.valid_until >= day);
    expect(open.filter((q) => q.valid_until <= plusDays(day, 7)).length).toBeGreaterThanOrEqual(1);
    expect(open.some((q) => q.valid_until > plusDays(day, 14))).toBe(true);
  });

  it('hold unpaid invoices in every age band, and none past due still says issued, sent or viewed', () => {
    const unpaid = books.invoices.filter((i) => i.status !== 'void' && i.status !== 'draft' && cents(i.balance) > 0n);
    for (const [band, from, to] of BANDS) {
      const late = (i: Json): number => dayNumber(day) - dayNumber(i.due_date);
      expect(unpaid.filter((i) => late(i) >= from && late(i) <= to).length, band).toBeGreaterThanOrEqual(1);
    }
    const stale = books.invoices.filter(
      (i) => ['issued', 'sent', 'viewed'].includes(i.status) && i.due_date < day && cents(i.balance) > 0n,
    );
    expect(stale.map((i) => i.number)).toEqual([]);
    expect(books.quotes.filter((q) => ['draft', 'sent', 'viewed'].includes(q.status) && q.valid_until < day)).toEqual([]);
  });
});

describe('the same seed on different days', () => {
  /** Each record with its dates written as days before today, and its times of day. */
  function relative(books: Books): unknown[] {
    const ago = (date: string): number => dayNumber(books.today) - dayNumber(date);
    const at = (stamp: string): string => `${ago(stamp.slice(0, 10))}d ${stamp.slice(11, 19)}`;
    return [
      ...books.invoices.map((i) => [
        i.number,
        i.status,
        i.total,
        i.balance,
        i.customer.id,
        ago(i.issue_date),
        ago(i.due_date),
        at(i.created_at),
        at(i.updated_at),
      ]),
      ...books.quotes.map((q) => [q.number, q.status, q.total, ago(q.issue_date), ago(q.valid_until), at(q.updated_at)]),
      ...books.payments.map((p) => [p.id, p.amount, p.method, ago(p.payment_date), at(p.created_at)]),
    ];
  }

  it('gives the same records at the same distance from today, whatever the day', () => {
    const [first, ...others] = DAYS.map((d) => relative(seen.get(d) as Books));
    for (const other of others) expect(other).toEqual(first);
  });
});
