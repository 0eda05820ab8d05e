// Time moves statuses on the sandbox clock, as the service does at the business's midnight: an unpaid
// invoice past its due date turns overdue, an open quote past its validity date turns expired, each with an
// updated_at of the midnight it changed at, so `updated_since` finds it. Checked in both modes over raw HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  cents,
  dayNumber,
  get,
  type Json,
  listAll,
  nzMidnight,
  plusDays,
  post,
  type SandboxHandle,
  type Session,
  signIn,
  start,
} from './sandbox-http.js';

const TODAY = '2026-11-01';
const OVERDUE_FROM = ['issued', 'sent', 'viewed'];
const EXPIRE_FROM = ['draft', 'sent', 'viewed'];

function pastDueButNotOverdue(invoices: Json[], today: string): Json[] {
  return invoices.filter((i) => OVERDUE_FROM.includes(i.status) && i.due_date < today && cents(i.balance) > 0n);
}

let sb: SandboxHandle;

beforeAll(async () => {
  sb = await start({ today: TODAY });
});
afterAll(() => sb.close());

/** A fresh session: advancing the clock by days ends the old ones. */
const session = (mode: 'test' | 'live'): Promise<Session> => signIn(sb.baseUrl, sb.keys[mode]);

describe('the sandbox clock', () => {
  it('says the business day besides the instant, and starts a pinned day at 09:00 in Auckland', async () => {
    const reply = await admin(sb, 'GET', '/clock');
    expect(reply.status).toBe(200);
    expect(reply.body.today).toBe(TODAY);
    const now = Date.parse(reply.body.now);
    expect(now - nzMidnight(TODAY)).toBeGreaterThanOrEqual(9 * 3600_000);
    expect(now - nzMidnight(TODAY)).toBeLessThan(9 * 3600_000 + 600_000);
  });

  it('refuses an advance that is not a whole number of days with 422 naming the field', async () => {
    for (const body of [{ advance_days: 1.5 }, { advance_days: -1 }, { advance_days: '2' }, {}]) {
      const reply = await admin(sb, 'POST', '/clock', body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(reply.body.errors).length, JSON.stringify(body)).toBe(1);
    }
  });
});

describe.each(['test', 'live'] as const)('time moves statuses (%s mode)', (mode) => {
  it('shows no past-due invoice with a balance as issued, sent or viewed, nor a quote past validity as open', async () => {
    const today = (await admin(sb, 'GET', '/clock')).body.today;
    const reader = await session(mode);
    expect(pastDueButNotOverdue(await listAll(reader, '/api/v1/invoices'), today)).toEqual([]);
    const quotes = await listAll(reader, '/api/v1/quotes');
    expect(quotes.filter((q) => EXPIRE_FROM.includes(q.status) && q.valid_until < today)).toEqual([]);
    expect(quotes.filter((q) => q.status === 'expired').length).toBeGreaterThan(0);
  });

  it('turns an unpaid invoice overdue and an open quote expired at the midnight after their last day', async () => {
    let reader = await session(mode);
    const before = (await admin(sb, 'GET', '/clock')).body;
    const invoices = await listAll(reader, '/api/v1/invoices');
    const quotes = await listAll(reader, '/api/v1/quotes');
    const byDue = (a: Json, b: Json): number => a.due_date.localeCompare(b.due_date);
    const invoice = invoices
      .filter((i) => OVERDUE_FROM.includes(i.status) && cents(i.balance) > 0n && i.due_date >= before.today)
      .sort(byDue)[0];
    const quote = quotes
      .filter((q) => EXPIRE_FROM.includes(q.status) && q.valid_until >= before.today)
      .sort((a, b) => a.valid_until.localeCompare(b.valid_until))[0];
    expect(invoice, 'an unpaid invoice not yet due').toBeDefined();
    expect(quote, 'an open quote still valid').toBeDefined();
    const partPaid = invoices.filter((i) => i.status === 'part_paid').map((i) => i.id);

    const lastDay = [invoice.due_date, quote.valid_until].sort().at(-1) as string;
    const days = dayNumber(lastDay) - dayNumber(before.today) + 1;
    const advanced = await admin(sb, 'POST', '/clock', { advance_days: days });
    expect(advanced.status).toBe(200);
    expect(advanced.body.today).toBe(plusDays(before.today, days));

    reader = await session(mode);
    const since = encodeURIComponent(before.now);
    const changedInvoices = await listAll(reader, `/api/v1/invoices?updated_since=${since}`);
    const movedInvoice = changedInvoices.find((i) => i.id === invoice.id);
    expect(movedInvoice?.status).toBe('overdue');
    expect(Date.parse(movedInvoice.updated_at)).toBe(nzMidnight(plusDays(invoice.due_date, 1)));
    const changedQuotes = await listAll(reader, `/api/v1/quotes?updated_since=${since}`);
    const movedQuote = changedQuotes.find((q) => q.id === quote.id);
    expect(movedQuote?.status).toBe('expired');
    expect(Date.parse(movedQuote.updated_at)).toBe(nzMidnight(plusDays(quote.valid_until, 1)));

    // Every change time is a past midnight, and part-paid invoices stay part_paid.
    const now = Date.parse(advanced.body.now);
    for (const record of [...changedInvoices, ...changedQuotes]) expect(Date.parse(record.updated_at)).toBeLessThanOrEqual(now);
    const after = await listAll(reader, '/api/v1/invoices');
    expect(after.filter((i) => partPaid.includes(i.id)).every((i) => i.status === 'part_paid')).toBe(true);
    expect(pastDueButNotOverdue(after, advanced.body.today)).toEqual([]);
  });
});

describe('an invoice sent today with a due date already past', () => {
  it('stays sent today and turns overdue at the next midnight, dated then, not at its due date', async () => {
    const live = await session('live');
    const today = (await admin(sb, 'GET', '/clock')).body.today;
    const customer = (await get(live, '/api/v1/customers?status=active&per_page=1')).body.data[0];
    const dueDate = plusDays(today, -5);
    const draft = await post(live, '/api/v1/invoices', {
      customer_id: customer.id,
      issue_date: plusDays(today, -20),
      due_date: dueDate,
      items: [{ description: 'Late paperwork', quantity: 1, unit_price: '80.00' }],
    });
    expect(draft.status).toBe(201);
    const sent = await admin(sb, 'POST', `/invoices/${draft.body.data.id}/send`);
    expect(sent.status).toBe(200);
    const sentAt = (await get(live, `/api/v1/invoices/${draft.body.data.id}`)).body.data;
    expect(sentAt.status).toBe('sent');

    await admin(sb, 'POST', '/clock', { advance_seconds: 3600 });
    const reader = await session('live');
    expect((await get(reader, `/api/v1/invoices/${draft.body.data.id}`)).body.data.status).toBe('sent');

    expect((await admin(sb, 'POST', '/clock', { advance_days: 1 })).status).toBe(200);
    const later = await session('live');
    const changed = await listAll(later, `/api/v1/invoices?updated_since=${encodeURIComponent(sentAt.updated_at)}`);
    const moved = changed.find((i) => i.id === draft.body.data.id);
    expect(moved?.status).toBe('overdue');
    expect(Date.parse(moved.updated_at)).toBe(nzMidnight(plusDays(today, 1)));
    expect(Date.parse(moved.updated_at)).toBeGreaterThan(Date.parse(sentAt.updated_at));
  });
});
