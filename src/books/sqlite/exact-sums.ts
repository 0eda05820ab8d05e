// Exact sums of decimal strings done by SQLite: an amount written with p decimal places is a whole number
// of 10^-p units, and SQLite adds whole numbers exactly in 64 bits (sum() stops with "integer overflow"
// rather than round). Amounts are grouped by their places, so each group's sum is exact, and written back
// as a decimal string. Only plain decimals of at most 18 digits are summed here: the caller sums anything
// else itself.

/** SQL: true when the column holds a plain decimal (`-12.50`, `3`, `6.000000`) of at most 18 digits. */
export const isPlain = (col: string): string =>
  `(${col} GLOB '[0-9]*' OR ${col} GLOB '-[0-9]*') AND substr(${col}, 2) NOT GLOB '*[^0-9.]*' AND ${col} NOT GLOB '*.*.*' ` +
  `AND ${col} NOT GLOB '*.' AND length(replace(replace(${col}, '.', ''), '-', '')) <= 18`;

/** SQL: the column's decimal places. */
export const placesOf = (col: string): string => `(CASE WHEN instr(${col}, '.') = 0 THEN 0 ELSE length(${col}) - instr(${col}, '.') END)`;

/** SQL: the exact sum of the column in units of its last place, as text (group by placesOf the column). */
export const scaledSum = (col: string): string => `CAST(SUM(CAST(replace(${col}, '.', '') AS INTEGER)) AS TEXT)`;

/** A whole number of 10^-places units as a decimal string: ("-1250", 2) is "-12.50", ("5", 3) is "0.005". */
export function fromScaled(units: string, places: number): string {
  const negative = units.startsWith('-');
  const digits = (negative ? units.slice(1) : units).padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const text = places === 0 ? whole : `${whole}.${digits.slice(digits.length - places)}`;
  return negative ? `-${text}` : text;
}
