// Calendar arithmetic on `YYYY-MM-DD` strings (the business's own days), and the date ranges and periods
// the answers speak of. Pure: "today" is always given, never read from a clock.

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

function namedRange(name: NamedRange, today: string): DateRange {
  const [y, m] = ymd(today);
  const q = Math.floor((m - 1) / 3) * 3 + 1;
  const span = (start: string, nextStart: string): DateRange => ({ from: start, to: addDays(nextStart, -1) });
  switch (name) {
    case 'this_month':
      return span(monthStart(y, m), monthStart(y, m + 1));
    case 'last_month':
      return span(monthStart(y, m - 1), monthStart(y, m));
    case 'this_quarter':
      return span(monthStart(y, q), monthStart(y, q + 3));
    case 'last_quarter':
      return span(monthStart(y, q - 3), monthStart(y, q));
    case 'this_year':
      return span(`${y}-01-01`, `${y + 1}-01-01`);
    case 'last_year':
      return span(`${y - 1}-01-01`, `${y}-01-01`);
  }
}

/**
 * The dates a question covers: a named range, the last N days (today included), or from/to (either open
 * end bounded by the other, or by today); nothing given means this month.
 */
export function resolveRange(request: RangeRequest, today: string): DateRange {
  if (request.range) return namedRange(request.range, today);
  if (request.days !== undefined) return { from: addDays(today, 1 - request.days), to: today };
  if (request.from !== undefined || request.to !== undefined) {
    return { from: request.from ?? '0000-01-01', to: request.to ?? today };
  }
  return namedRange('this_month', today);
}

export const inRange = (date: string, range: DateRange): boolean => date >= range.from && date <= range.to;
