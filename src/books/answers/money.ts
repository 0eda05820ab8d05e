// Exact sums of decimal strings, kept per currency (amounts of different currencies are never added).
// A sum prints with as many decimal places as the most precise amount in it (at least two), so it is exact.
import { Decimal } from 'decimal.js';

const placesOf = (amount: string): number => {
  const dot = amount.indexOf('.');
  return dot < 0 ? 0 : amount.length - dot - 1;
};

/** An amount read once (parsing is most of an exact sum's cost), with the places it was written with. */
export interface Amount {
  value: Decimal;
  places: number;
}

export const readAmount = (amount: string): Amount => ({ value: new Decimal(amount), places: placesOf(amount) });

export class Sum {
  private value = new Decimal(0);
  private places = 2;

  add(amount: string | Amount): this {
    const a = typeof amount === 'string' ? readAmount(amount) : amount;
    this.value = this.value.plus(a.value);
    this.places = Math.max(this.places, a.places);
    return this;
  }

  /** Adds another sum (exactly; it keeps the places of the more precise). */
  addSum(other: Sum): this {
    return this.add({ value: other.value, places: other.places });
  }

  get decimal(): Decimal {
    return this.value;
  }

  toString(): string {
    return this.value.toFixed(this.places);
  }
}

/** A quantity in its shortest exact form: "6" for "6.000000", "2.5" for "2.500000". */
export const shortQuantity = (quantity: string): string => new Decimal(quantity).toFixed();

/** a - b, exactly, printed with the places of the more precise of the two (at least two for money). */
export function difference(a: string, b: string, minPlaces = 0): string {
  return new Decimal(a).minus(b).toFixed(Math.max(minPlaces, placesOf(a), placesOf(b)));
}

export const isPositive = (amount: string): boolean => new Decimal(amount).greaterThan(0);

export const compareAmounts = (a: string, b: string): number => new Decimal(a).comparedTo(b);

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
