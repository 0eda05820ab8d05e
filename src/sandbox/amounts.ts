// Exact decimal arithmetic for amounts and quantities. Amounts never pass through JS numbers.
import { Decimal } from 'decimal.js';

export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

/** Half-up to 2 places, printed with exactly 2. */
export function toAmount(value: Decimal.Value): string {
  return new Money(value).toDecimalPlaces(2, Money.ROUND_HALF_UP).toFixed(2);
}

/** A unit price (up to 4 places) printed with at least 2, like every other amount: "5" -> "5.00". */
export function toPrice(text: string): string {
  return new Money(text).toFixed(Math.max(2, decimalPlaces(text)));
}

/** Printed with exactly 6 places, as the spec prints quantities. */
export function toQuantity(value: Decimal.Value): string {
  return new Money(value).toFixed(6);
}

export function sum(values: Decimal.Value[]): Money {
  return values.reduce<Money>((acc, v) => acc.plus(v), new Money(0));
}

/** Number of digits after the point of a plain decimal string such as "12.3400". */
export function decimalPlaces(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

export const DECIMAL_RE = /^-?\d+(\.\d+)?$/;
