// Times for the sample books: n records spread over the two years before the anchor, in creation order.
import type { Rng } from '../prng.js';
import { BOOKS_ANCHOR_MS } from './profiles.js';

export const DAY_MS = 24 * 3600 * 1000;
export const SPAN_MS = 730 * DAY_MS;
export const BOOKS_START_MS = BOOKS_ANCHOR_MS - SPAN_MS;

/** Rising creation times for n records between `fromMs` and the anchor, with a little jitter. */
export function creationTimes(rng: Rng, n: number, fromMs = BOOKS_START_MS): number[] {
  const span = BOOKS_ANCHOR_MS - fromMs - DAY_MS;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const base = fromMs + Math.floor((span * i) / Math.max(1, n));
    times.push(base + rng.int(0, Math.floor(span / Math.max(1, n)) - 1) + rng.int(0, 59) * 1000);
  }
  return times;
}

/** A later change: somewhere between `createdMs` and `maxDays` after it, never past the anchor. */
export function laterTime(rng: Rng, createdMs: number, maxDays: number): number {
  const latest = Math.min(BOOKS_ANCHOR_MS - 1000, createdMs + maxDays * DAY_MS);
  return latest <= createdMs ? createdMs : createdMs + rng.int(0, Math.floor((latest - createdMs) / 1000)) * 1000;
}
