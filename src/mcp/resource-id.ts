// A record id in a resource URI: decimal digits only, so `0x10`, `1e3` or ` 7` never name another record.

/** The id `raw` spells in decimal digits; NaN for anything else. */
export function decimalId(raw: string | undefined): number {
  return raw !== undefined && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
}
