// A record of the books as the service sent it: its fields as they came, and its id.
export type Rec = Record<string, unknown> & { id: number };

/** When a record last changed, as the service wrote it: `updated_at`, else `created_at` (payments). */
export function stampOf(record: Record<string, unknown>): string | null {
  const s = record.updated_at ?? record.created_at;
  return typeof s === 'string' ? s : null;
}

/**
 * The instant a record's stamp names (epoch ms), or null. Stamps carry the business's offset (`+13:00`, then
 * `+12:00` when daylight saving ends), so only the instant orders two of them.
 */
export function stampMsOf(record: Record<string, unknown>): number | null {
  const ms = Date.parse(stampOf(record) ?? '');
  return Number.isFinite(ms) ? ms : null;
}
