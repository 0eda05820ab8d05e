// Exact sums of decimal strings done by SQLite. An amount written with p decimal places is a whole number
// of 10^-p units; the mirror stores that number beside the amount (as text, which the INTEGER column takes
// exactly), and SQLite adds whole numbers exactly in 64 bits (sum() stops with "integer overflow" rather
// than round). Amounts are grouped by their places, so each group's sum is exact, and written back as a
// decimal string. Only plain decimals of at most 18 digits get units: anything else is summed by the caller.

const PLAIN = /^-?(\d+)(?:\.(\d+))?$/;

/** An amount as [units, places] for the store, or [null, null] when it is not a plain decimal of <= 18 digits. */
export function unitsOf(amount: string | null): [string | null, number | null] {
  const m = amount === null ? null : PLAIN.exec(amount);
  if (!m || amount === null) return [null, null];
  const digits = `${m[1] ?? ''}${m[2] ?? ''}`;
  if (digits.length > 18) return [null, null];
  return [`${amount.startsWith('-') ? '-' : ''}${digits}`, (m[2] ?? '').length];
}

/** A whole number of 10^-places units as a decimal string: ("-1250", 2) is "-12.50", ("5", 3) is "0.005". */
export function fromScaled(units: string, places: number): string {
  const negative = units.startsWith('-');
  const digits = (negative ? units.slice(1) : units).padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const text = places === 0 ? whole : `${whole}.${digits.slice(digits.length - places)}`;
  return negative ? `-${text}` : text;
}
