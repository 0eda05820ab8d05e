// Exact sums of decimal strings done by SQLite. An amount written with p decimal places is a whole number
// of 10^-p units; the mirror stores that number beside the amount (as text, which the INTEGER column takes
// exactly), and SQLite adds whole numbers exactly in 64 bits: sum() stops with "integer overflow" rather
// than round, and the caller then sums the rows with the same exact decimal. Amounts are grouped by their
// places, so each group's sum is exact, and written back as a decimal string. Only plain decimals of at
// most 18 digits get units (any 18 digits fit 64 bits): anything else is summed by the caller.
import { Decimal } from '../../core/decimal.js';

const MOST_UNITS = 10n ** 18n;

/** An amount as [units, places] for the store, or [null, null] when it is not a plain decimal of <= 18 digits. */
export function unitsOf(amount: string | null): [string | null, number | null] {
  const d = Decimal.read(amount);
  if (d === null || d.units >= MOST_UNITS || d.units <= -MOST_UNITS) return [null, null];
  return [d.units.toString(), d.places];
}

/** A whole number of 10^-places units as a decimal string: ("-1250", 2) is "-12.50", ("5", 3) is "0.005". */
export const fromScaled = (units: string, places: number): string => Decimal.of(BigInt(units), places).toString();
