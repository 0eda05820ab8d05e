// Exact sums of decimal strings, kept per currency (amounts of different currencies are never added).
// A sum prints with as many decimal places as the most precise amount in it (at least two), so it is exact.
import { Decimal } from '../core/decimal.js';

/** An amount read once (parsing is most of an exact sum's cost); it keeps the places it was written with. */
export type Amount = Decimal;

export const readAmount = (amount: string): Amount => Decimal.parse(amount);

export class Sum {
  // Starts at two places: a sum of amounts with fewer (or none) still prints as money.
  #value = Decimal.of(0n, 2);

  add(amount: string | Amount): this {
    this.#value = this.#value.plus(amount);
    return this;
  }

  /** Adds another sum (exactly; it keeps the places of the more precise). */
  addSum(other: Sum): this {
    return this.add(other.#value);
  }

  get decimal(): Decimal {
    return this.#value;
  }

  toString(): string {
    return this.#value.toString();
  }
}

/** A quantity in its shortest exact form: "6" for "6.000000", "2.5" for "2.500000". */
export const isPositive = (amount: string): boolean => Decimal.parse(amount).isPositive();

export const compareAmounts = (a: string, b: string): number => Decimal.parse(a).compare(b);

/** One string for a compound group key (null kept apart from the text "null"). */
export const keyOf = (...parts: (string | number | null | undefined)[]): string =>
  parts.map((p) => (p === null || p === undefined ? '\u0001' : String(p))).join('\u0000');

/** Groups rows by a key, keeping the order of first appearance. */
export function groupBy<T, K>(rows: readonly T[], keyOf: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/** Currencies in a stable order: alphabetical. */
export const byCurrency = <T extends { currency: string | null }>(a: T, b: T): number => (a.currency ?? '').localeCompare(b.currency ?? '');

// A sort of a thousand groups makes some ten thousand comparisons: localeCompare with options builds a
// collator at each one, so the order of keys is one collator made once, and currency codes (three capital
// letters) are compared as they are, in the same order.
const KEY_ORDER = new Intl.Collator('en', { numeric: true });
const compareCodes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const compareKeys = (a: string | number | null, b: string | number | null): number =>
  typeof a === 'number' && typeof b === 'number' ? a - b : KEY_ORDER.compare(String(a), String(b));

/**
 * Groups ranked within each currency by the figure asked (ties by key), currencies in code order; at most
 * `limit` shown per currency, and how many were left out.
 */
export function rankedPerCurrency<G extends { currency: string; key: string | number | null }>(
  groups: G[],
  figure: (g: G) => Decimal,
  limit: number,
): { shown: G[]; leftOut: number } {
  const values = new Map(groups.map((g) => [g, figure(g)]));
  const figureOf = (g: G): Decimal => values.get(g) ?? Decimal.ZERO;
  groups.sort((a, b) => compareCodes(a.currency, b.currency) || figureOf(b).compare(figureOf(a)) || compareKeys(a.key, b.key));
  const shown: G[] = [];
  const perCurrency = new Map<string, number>();
  for (const g of groups) {
    const n = perCurrency.get(g.currency) ?? 0;
    perCurrency.set(g.currency, n + 1);
    if (n < limit) shown.push(g);
  }
  return { shown, leftOut: groups.length - shown.length };
}
