// One count in a fixed window, taken by one statement that succeeds only while the count has room: of
// requests racing for the last place, exactly one gets it (Postgres locks the row and checks again).

import { num } from '../../store/cells.js';
import type { Query } from '../../store/postgres/db.js';

export interface Window {
  /** A table of (subject text PRIMARY KEY, window_start_ms bigint, count integer). */
  table: string;
  windowMs: number;
  max: number;
}

/** The window's start when a place was taken for `subject` at `now`, or null when its count is full. */
export async function takeInWindow(query: Query, window: Window, subject: string, now: number): Promise<number | null> {
  const { table, windowMs, max } = window;
  const [row] = await query(
    `INSERT INTO ${table} (subject, window_start_ms, count) VALUES (?, ?, 1)
     ON CONFLICT (subject) DO UPDATE SET
       window_start_ms = CASE WHEN ${table}.window_start_ms <= ? THEN excluded.window_start_ms ELSE ${table}.window_start_ms END,
       count = CASE WHEN ${table}.window_start_ms <= ? THEN 1 ELSE ${table}.count + 1 END
     WHERE ${table}.window_start_ms <= ? OR ${table}.count < ?
     RETURNING window_start_ms`,
    [subject, now, now - windowMs, now - windowMs, now - windowMs, max],
  );
  return row ? num(row[0]) : null;
}

/** How long until a full count for `subject` has room again (at least a second). */
export async function waitInWindow(query: Query, window: Window, subject: string, now: number): Promise<number> {
  const [full] = await query(`SELECT window_start_ms FROM ${window.table} WHERE subject = ?`, [subject]);
  return Math.max(1_000, num(full?.[0]) + window.windowMs - now);
}
