// Amounts and quantities as the service prints them, in the project's one exact decimal (src/core/decimal.ts):
// nothing passes through a JS number, and nothing rounds but the line arithmetic, half-up to 2 places.
import { Decimal } from '../core/decimal.js';

export { Decimal };

const asDecimal = (value: Decimal | string): Decimal => (typeof value === 'string' ? Decimal.parse(value) : value);

/** Half-up to 2 places, printed with exactly 2. */
export const toAmount = (value: Decimal | string): string => asDecimal(value).roundHalfUp(2).toFixed(2);

/** A unit price (up to 4 places) printed with at least 2, like every other amount: "5" -> "5.00". */
export function toPrice(text: string): string {
  const price = Decimal.parse(text);
  return price.toFixed(Math.max(2, price.places));
}

/** Printed with exactly 6 places, as the spec prints quantities (they have at most 6). */
export const toQuantity = (value: Decimal | string): string => asDecimal(value).toFixed(6);

/**
 * A decimal sent in a body: a plain decimal string, or a JSON number read through its shortest decimal
 * form (exactly what the sender wrote, for up to 15 significant digits). Null for anything else.
 */
export const bodyDecimal = (raw: unknown): Decimal | null =>
  Decimal.read(typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw);
