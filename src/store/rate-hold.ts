// A 429 met by one process on a mirror holds the key's calls in every process on it: the time the hold ends is
// kept in the store's meta table, raised only (two processes' holds keep the later), and each process looks
// at it as often as it looks for other processes' events. The same SQL on every engine.

const KEY = 'rate_hold_until';

/** Upsert that keeps the later of the stored time and the new one (epoch ms, as text). */
export const SHARE_RATE_HOLD = `INSERT INTO meta (key, value) VALUES ('${KEY}', ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(meta.value AS BIGINT) < CAST(excluded.value AS BIGINT)`;

export const READ_RATE_HOLD = `SELECT value FROM meta WHERE key = '${KEY}'`;
