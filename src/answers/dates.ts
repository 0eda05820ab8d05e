// Calendar arithmetic on `YYYY-MM-DD` strings (the business's own days), and the date ranges and periods
// the answers speak of. Pure: "today" is always given, never read from a clock.
import { counted } from '../core/counted.js';
import { RefusedQuestion } from '../core/refused.js';

const DAY_MS = 86_400_000;

const toMs = (date: string): number => Date.parse(`${date}T00:00:00Z`);
const fromMs = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string => fromMs(toMs(date) + days * DAY_MS);

/** Whole days from `from` to `to` (positive when `to` is later). */
export const daysBetween = (from: string, to: string): number => Math.round((toMs(to) - toMs(from)) / DAY_MS);

const ymd = (date: string): [number, number, number] => {
  const [y, m, d] = date.split('-').map(Number);
  return [y ?? 0, m ?? 1, d ?? 1];
};
const pad = (n: number): string => String(n).padStart(2, '0');
const monthStart = (y: number, m: number): string => {
  const shifted = new Date(Date.UTC(y, m - 1, 1));
  return fromMs(shifted.getTime());
};

export const PERIODS = ['day', 'week', 'month', 'quarter'] as const;
export type Period = (typeof PERIODS)[number];

/** The period a date falls in, named by its first day's label: 2026-11-23, week of 2026-11-23 (Monday), 2026-11, 2026-Q4. */
export function periodOf(date: string, period: Period): string {
  const [y, m] = ymd(date);
  switch (period) {
    case 'day':
      return date;
    case 'week': {
      const weekday = (new Date(toMs(date)).getUTCDay() + 6) % 7; // Monday = 0
      return addDays(date, -weekday);
    }
    case 'month':
      return `${y}-${pad(m)}`;
    case 'quarter':
      return `${y}-Q${Math.floor((m - 1) / 3) + 1}`;
  }
}

export const NAMED_RANGES = ['this_month', 'last_month', 'this_quarter', 'last_quarter', 'this_year', 'last_year'] as const;
export type NamedRange = (typeof NAMED_RANGES)[number];

export interface DateRange {
  from: string;
  to: string;
}

export interface RangeRequest {
  range?: NamedRange | undefined;
  /** The last N days, today included. */
  days?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** Named ranges that contain today end today: "this year" is the year to date, never a future day. */
function namedRange(name: NamedRange, today: string): DateRange {
  const [y, m] = ymd(today);
  const q = Math.floor((m - 1) / 3) * 3 + 1;
  const span = (start: string, nextStart: string): DateRange => ({ from: start, to: addDays(nextStart, -1) });
  switch (name) {
    case 'this_month':
      return { from: monthStart(y, m), to: today };
    case 'last_month':
      return span(monthStart(y, m - 1), monthStart(y, m));
    case 'this_quarter':
      return { from: monthStart(y, q), to: today };
    case 'last_quarter':
      return span(monthStart(y, q - 3), monthStart(y, q));
    case 'this_year':
      return { from: `${y}-01-01`, to: today };
    case 'last_year':
      return span(`${y - 1}-01-01`, `${y}-01-01`);
  }
}

const daysInMonth = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** A real calendar day, or a refusal that names the nearest one to send. */
function checkDate(name: string, date: string): void {
  const [y, m, d] = ymd(date);
  if (m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m)) return;
  const month = Math.min(Math.max(m, 1), 12);
  const example = `${String(y).padStart(4, '0')}-${pad(month)}-${pad(Math.min(Math.max(d, 1), daysInMonth(y, month)))}`;
  throw new RefusedQuestion(`${name}: ${date} is not a date: send YYYY-MM-DD, e.g. ${example}`);
}

/** Two ways of giving the dates at once: refused, since either one dropped would answer another question. */
function checkOneWay(request: RangeRequest): void {
  const given = [
    request.range !== undefined ? 'range' : '',
    request.days !== undefined ? 'days' : '',
    request.from !== undefined || request.to !== undefined ? 'from/to' : '',
  ].filter(Boolean);
  if (given.length > 1) {
    throw new RefusedQuestion(
      `${given.join(' and ')} both give the dates: send one of range (e.g. "this_year"), days (e.g. 30) or from/to (e.g. from "2026-01-01", to "2026-03-31").`,
    );
  }
}

/** What can be refused without knowing today: before any read, so a refusal costs no call. */
export function checkRangeRequest(request: RangeRequest): void {
  checkOneWay(request);
  if (request.from !== undefined) checkDate('from', request.from);
  if (request.to !== undefined) checkDate('to', request.to);
}

/**
 * The dates a question covers: a named range, the last N days (today included), or from/to (either open
 * end bounded by the other, or by today); nothing given means this month to date. Refuses what is not a
 * date, a range that ends before it starts, and two ways of giving the dates at once.
 */
export function resolveRange(request: RangeRequest, today: string): DateRange {
  checkRangeRequest(request);
  if (request.range) return namedRange(request.range, today);
  if (request.days !== undefined) return { from: addDays(today, 1 - request.days), to: today };
  if (request.from !== undefined || request.to !== undefined) {
    const range = { from: request.from ?? '0000-01-01', to: request.to ?? today };
    if (range.from > range.to) {
      throw new RefusedQuestion(
        `from ${range.from} is after ${request.to === undefined ? 'today' : 'to'} ${range.to}: send from on or before to, e.g. from "${range.to}", to "${range.from}".`,
      );
    }
    return range;
  }
  return namedRange('this_month', today);
}

const RANGE_WORDS: Record<NamedRange, string> = {
  this_month: 'this month to date',
  last_month: 'last month',
  this_quarter: 'this quarter to date',
  last_quarter: 'last quarter',
  this_year: 'this year to date',
  last_year: 'last year',
};

/** "2026-01-01 to 2026-11-24 (this year to date)": the dates, and the name they were asked by. */
export function rangeWords(request: RangeRequest, range: DateRange): string {
  const named =
    request.range ?? (request.days === undefined && request.from === undefined && request.to === undefined ? 'this_month' : undefined);
  const words = named ? RANGE_WORDS[named] : request.days !== undefined ? `the last ${counted(request.days, 'day')}` : '';
  return `${range.from} to ${range.to}${words ? ` (${words})` : ''}`;
}

export const inRange = (date: string, range: DateRange): boolean => date >= range.from && date <= range.to;
