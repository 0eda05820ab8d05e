// What every answer tool does first: bring the kinds it reads up to date (reporting progress to a client
// that asked for it), then read. The as-of line and its schema are shared by every answer.

import * as z from 'zod/v4';
import type { ToolContext } from '../../tools/context.js';
import { money } from '../../tools/format.js';
import { RefusedQuestion } from '../core/refused.js';
import type { Freshness, InvoiceFilter, MirroredKind, MirrorReader } from '../store/types.js';
import { NAMED_RANGES } from './dates.js';

export interface FreshRead {
  read: MirrorReader;
  /** Reads that must agree with each other (several kinds or queries): one consistent state of the books. */
  snapshot<T>(work: (read: MirrorReader) => Promise<T>): Promise<T>;
  freshness: Freshness;
}

/**
 * `lines`: the invoices whose lines the answer sums, from today; fetched now when they fit. `labels`: kinds read
 * for names only, read once (see EnsureFreshOptions).
 */
export async function freshBooks(
  ctx: ToolContext,
  kinds: readonly MirroredKind[],
  lines?: (today: string) => InvoiceFilter,
  labels?: readonly MirroredKind[],
): Promise<FreshRead> {
  if (!ctx.books) {
    throw new RefusedQuestion('The books mirror is off (--mirror off), so answers are not available: use the list_* tools instead.');
  }
  const freshness = await ctx.books.ensureFresh(kinds, {
    ...(ctx.progress ? { onProgress: ctx.progress } : {}),
    ...(lines ? { lines } : {}),
    ...(labels ? { labels } : {}),
  });
  const books = ctx.books;
  return { read: books.read, snapshot: (work) => books.snapshot(work), freshness };
}

/** `as_of` and `today` on every answer. */
export const asOf = { as_of: z.string(), today: z.string(), warning: z.string().optional() };

export const asOfFields = (f: Freshness): { as_of: string; today: string; warning?: string } => ({
  as_of: f.asOf,
  today: f.today,
  ...(f.warning ? { warning: f.warning } : {}),
});

export const asOfLine = (f: Freshness): string => `As of ${f.asOf} (today ${f.today}).${f.warning ? ` Warning: ${f.warning}.` : ''}`;

/** A payment as one line of an answer's text: who paid (when the answer is not about one customer) and what it paid. */
export const paymentLine = (
  p: { id: number; payment_date: string; currency: string; amount: string; method: string },
  payer: string,
  paid: string,
): string => `- #${p.id} ${p.payment_date}${payer} ${money(p.currency, p.amount)} by ${p.method}${paid}`;

/** "20 of 45 shown" when some were left out. */
export const shownOf = (shown: number, leftOut: number): string => (leftOut > 0 ? ` (${shown} of ${shown + leftOut} shown)` : '');

/** "(21-40 of 128; next: offset=40)" for a page past the first; else as shownOf says. */
export function pageOf(shown: number, leftOut: number, offset: number): string {
  if (offset === 0) return shownOf(shown, leftOut);
  const all = offset + shown + leftOut;
  const next = leftOut > 0 ? `; next: offset=${offset + shown}` : '';
  return ` (${shown > 0 ? `${offset + 1}-${offset + shown}` : 'none'} of ${all}${next})`;
}

/** The `offset` argument of a list that pages past its limit. */
export const offsetArg = (what: string) => z.number().int().min(0).default(0).describe(`${what} to skip: the next page`);

export const limit = (max: number, fallback: number) => z.number().int().min(1).max(max).default(fallback);

/** An amount a person bounds a question by: a plain decimal, compared exactly. */
export const amountArg = z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, 'send a plain decimal, e.g. 10000 or 250.50');

/** One currency a report narrows to, by its ISO 4217 code (the description stands for the pattern in the tools list). */
export const currencyArg = z
  .string()
  .regex(/^[A-Z]{3}$/, 'send an ISO 4217 code, e.g. NZD')
  .describe('e.g. NZD');

export const dateArg = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'send YYYY-MM-DD, e.g. 2026-02-28');

/** A list of answer rows; their fields are described by the tool's text and the README. */
export const rows = z.array(z.unknown());

/** A report over a date range: its bounds, its totals per currency and its groups (those past the limit counted). */
export const rangeReport = {
  ...asOf,
  from: z.string(),
  to: z.string(),
  totals: rows,
  groups: rows,
  groups_left_out: z.number().int(),
};

export const rangeArgs = {
  range: z.enum(NAMED_RANGES).optional().describe('this_* end today; one of range, days or from/to'),
  days: z.number().int().min(1).max(3660).optional().describe('The last N days, today included'),
  from: dateArg.optional().describe('YYYY-MM-DD'),
  to: dateArg.optional().describe('YYYY-MM-DD, inclusive'),
};
