// Time in a business's own zone: timestamps carry that zone's offset (+13:00 or +12:00 in Auckland),
// dates are that zone's calendar days. Everything else in the sandbox works in epoch milliseconds.

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormatters.set(timeZone, f);
  }
  return f;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The offset at `ms` as the zone database says it: one `formatToParts`, the slow part of every timestamp. */
function offsetFromIntl(ms: number, timeZone: string): number {
  const out: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  const asUtc = Date.UTC(out.year ?? 0, (out.month ?? 1) - 1, out.day ?? 1, out.hour ?? 0, out.minute ?? 0, out.second ?? 0);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000);
}

const DAY_MS = 86_400_000;
/** Per zone, per UTC day since the epoch: the offset throughout that day, or NaN where it changes within it. */
const dayOffsets = new Map<string, Map<number, number>>();
const MAX_DAYS_KEPT = 100_000;

/** The zone's offset from UTC at instant `ms`, in whole minutes. */
export function offsetMinutes(ms: number, timeZone: string): number {
  let days = dayOffsets.get(timeZone);
  if (!days) {
    days = new Map();
    dayOffsets.set(timeZone, days);
  }
  const day = Math.floor(ms / DAY_MS);
  let offset = days.get(day);
  if (offset === undefined) {
    // Zones change their offset at most once in a day (twice a year at most): the same offset at its first
    // and last second holds for every second between. Two years of books touch ~730 days, not ~17,000 hours.
    const first = offsetFromIntl(day * DAY_MS, timeZone);
    offset = first === offsetFromIntl((day + 1) * DAY_MS - 1000, timeZone) ? first : Number.NaN;
    if (days.size >= MAX_DAYS_KEPT) days.clear();
    days.set(day, offset);
  }
  return Number.isNaN(offset) ? offsetFromIntl(ms, timeZone) : offset;
}

/** The wall clock in the zone at instant `ms`, to the second. */
function wallClock(ms: number, timeZone: string): WallClock {
  const local = new Date(Math.floor(ms / 1000) * 1000 + offsetMinutes(ms, timeZone) * 60_000);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** ISO 8601 with the zone's offset and whole seconds: `2026-03-04T10:11:12+13:00`. */
export function formatTimestamp(ms: number, timeZone: string): string {
  const w = wallClock(ms, timeZone);
  const off = offsetMinutes(ms, timeZone);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return (
    `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** The calendar date (`YYYY-MM-DD`) in the zone at instant `ms`. */
export function localDate(ms: number, timeZone: string): string {
  const w = wallClock(ms, timeZone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_RE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** 00:00:00 of `date` in the zone, as epoch milliseconds. */
export function zonedMidnight(date: string, timeZone: string): number {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, mo - 1, d);
  // The offset at the guess may differ from the offset at the answer across a DST change: settle twice.
  let ms = guess - offsetMinutes(guess, timeZone) * 60000;
  ms = guess - offsetMinutes(ms, timeZone) * 60000;
  return ms;
}

/** Adds whole days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d + days));
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

const TIMESTAMP_RE = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Reads `updated_since`: a date (midnight in the business's zone) or a timestamp with `Z` or an offset.
 * Returns null when it is neither; a `+` sent unencoded arrives as a space and is refused that way.
 */
export function parseUpdatedSince(text: string, timeZone: string): number | null {
  if (DATE_RE.test(text)) return isCalendarDate(text) ? zonedMidnight(text, timeZone) : null;
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return null;
  const [, date, hh, mm, ss = '00', frac = '', zone] = m as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
    string | undefined,
    string,
  ];
  if (!isCalendarDate(date) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
  const iso = `${date}T${hh}:${mm}:${ss}${frac.slice(0, 4)}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}
