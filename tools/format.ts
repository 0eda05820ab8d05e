// Compact text for models that read only text: one short line per record, money with its currency,
// and where the next page is. Amounts are printed exactly as the service sent them.

import { Decimal } from '../src/core/decimal.js';

/** An amount with its currency, exactly as the service sent it; a figure with no currency is in the base currency. */
export const money = (currency: string | null, amount: string): string => `${currency ?? '(base currency)'} ${amount}`;

/** A quantity without its trailing zeros ("6.000000" is "6"), exactly. */
export const shortQuantity = (quantity: string): string => Decimal.parse(quantity).toShortString();

export interface PageMeta {
  current_page?: number | null;
  last_page?: number | null;
  per_page?: number | null;
  total?: number | null;
  from?: number | null;
  to?: number | null;
}

/** "page 2 of 7 (26-50 of 160); next: page=3", or "no records" for an empty list. */
export function pageLine(meta: PageMeta, noun: string): string {
  const total = meta.total ?? null;
  if (total === 0) return `no ${noun} match`;
  const page = meta.current_page ?? 1;
  const last = meta.last_page ?? null;
  const range = meta.from != null && meta.to != null ? `${meta.from}-${meta.to}` : 'none';
  const of = total === null ? '' : ` of ${total}`;
  const head = `${noun} ${range}${of}, page ${page}${last === null ? '' : ` of ${last}`}`;
  return last !== null && page < last ? `${head}; next: page=${page + 1}` : `${head}; last page`;
}

export function listText(lines: string[], meta: PageMeta, noun: string): string {
  return [pageLine(meta, noun), ...lines].join('\n');
}

/** "a: 1, b: 2", leaving out empty values. */
export function fields(pairs: [string, string | number | boolean | null | undefined][]): string {
  return pairs
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
}

/** What a create's answer says about a replay, true to how it came about; '' when it was not one. */
export function replayNote(created: { replayed: boolean; replayedOnRetry: boolean }): string {
  if (created.replayedOnRetry)
    return 'Created once: the first attempt got no clear answer and the retry found it already made (no duplicate).';
  return created.replayed ? 'Already created earlier with this idempotency key; no duplicate.' : '';
}

/** How a test key's create opens, before anything a model could take for a saved record. */
export const NOT_SAVED = 'Not saved: this is a test key, which validates a create and shows it as it would be; no record was made.';
