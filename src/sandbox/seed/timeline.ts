// Time for the sample books, anchored to the sandbox's start day: the history covers the two years before
// `today` and ends yesterday. The books are generated in moments relative to that history, never in
// instants: a moment is whole days since the history began times 86,400 plus a second of the day, and
// every draw of the seeded generator is made in moments. So the same seed gives the same records with the
// same relative dates on whichever day the sandbox starts, and no record ever falls in a DST change's
// missing or doubled hour (records are made in business hours). Moments become instants in the business's
// zone at the very end (`instant`).
import type { Rng } from '../prng.js';
import { addDays, offsetMinutes, zonedMidnight } from '../time.js';

export const DAY = 86_400;
export const HISTORY_DAYS = 730;
const OPENS = 7 * 3600;
const CLOSES = 20 * 3600;
const BUSINESS_SECONDS = CLOSES - OPENS;

export class Timeline {
  /** The moment today begins: the end of the history. */
  readonly anchor = HISTORY_DAYS * DAY;
  readonly #firstDay: string;
  /** Per day of the history, the instant its wall clock would read 00:00 on business hours' offset. */
  readonly #days = new Map<number, number>();

  constructor(
    readonly today: string,
    readonly timeZone: string,
  ) {
    this.#firstDay = addDays(today, -HISTORY_DAYS);
  }

  /** The moment `secondOfDay` seconds into the day `daysAgo` days before today. */
  daysAgo(daysAgo: number, secondOfDay: number): number {
    return (HISTORY_DAYS - daysAgo) * DAY + secondOfDay;
  }

  /** Whole days from the moment's day to today. */
  age(moment: number): number {
    return HISTORY_DAYS - Math.floor(moment / DAY);
  }

  /** The business's calendar date of a moment. */
  date(moment: number): string {
    return addDays(this.#firstDay, Math.floor(moment / DAY));
  }

  /** The instant (epoch ms) of a moment: its wall-clock time in the business's zone. */
  instant(moment: number): number {
    const day = Math.floor(moment / DAY);
    let start = this.#days.get(day);
    if (start === undefined) {
      const midnight = zonedMidnight(addDays(this.#firstDay, day), this.timeZone);
      // On a DST day the clock jumps at 02:00 or 03:00, before business hours: read the wall clock there.
      const shift = (offsetMinutes(midnight, this.timeZone) - offsetMinutes(midnight + OPENS * 1000, this.timeZone)) * 60_000;
      start = midnight + shift;
      this.#days.set(day, start);
    }
    return start + (moment - day * DAY) * 1000;
  }
}

/** A moment in business hours at business second `n` of the history (13 business hours a day). */
function businessMoment(n: number): number {
  return Math.floor(n / BUSINESS_SECONDS) * DAY + OPENS + (n % BUSINESS_SECONDS);
}

/** A random second of business hours. */
export function businessSecond(rng: Rng): number {
  return rng.int(OPENS, CLOSES - 1);
}

/**
 * Rising creation moments for n records over the history up to yesterday, each in its own slot. Two draws
 * a record, and one for a later change, as the books made before anchoring took: customers and products
 * (their names, codes, details) stay what they were.
 */
export function creationTimes(rng: Rng, n: number): number[] {
  const span = HISTORY_DAYS * BUSINESS_SECONDS;
  const slot = Math.floor(span / Math.max(1, n));
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const jitter = rng.int(0, slot - 61) + rng.int(0, 59);
    times.push(businessMoment(Math.floor((span * i) / Math.max(1, n)) + jitter));
  }
  return times;
}

/** A later change: on a day up to `maxDays` after `created`, in business hours, never today or later. */
export function laterTime(rng: Rng, created: number, maxDays: number): number {
  const firstDay = Math.floor(created / DAY);
  const days = Math.max(1, Math.min(HISTORY_DAYS - 1, firstDay + maxDays) - firstDay + 1);
  const n = rng.int(0, days * BUSINESS_SECONDS - 1);
  return Math.max(created, businessMoment(firstDay * BUSINESS_SECONDS + n));
}
