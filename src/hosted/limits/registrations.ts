// Dynamic registrations per client address, on Postgres so every process of the deployment counts alike:
// registration is open to anyone, so one address may register at most so many clients an hour (20 unless
// the operator says otherwise: an MCP client registers once and again only when it lost what it stored, so a
// person re-registering a few times, or a few people behind one address, stays well within it). Every
// request counts, taken or refused, so refused ones cannot be sent without end either. Addresses are stored
// as a keyed hash, never in the clear.
import { createHmac } from 'node:crypto';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import { takeInWindow, type Window, waitInWindow } from './window-count.js';

const TABLE = `${HOSTED_SCHEMA}.registrations`;
const HOUR_MS = 3_600_000;

export const REGISTRATIONS_PER_HOUR = 20;

export class Registrations {
  readonly #window: Window;

  constructor(
    readonly db: PgDb,
    /** Keys the hash the addresses are stored under. */
    readonly hashKey: string,
    readonly now: () => number,
    readonly perHour: number = REGISTRATIONS_PER_HOUR,
  ) {
    this.#window = { table: TABLE, windowMs: HOUR_MS, max: perHour };
  }

  /** 0 when `address` may register now (and it is counted), else how long until it may. */
  async take(address: string): Promise<number> {
    const now = this.now();
    const subject = createHmac('sha256', this.hashKey).update(`registrations\n${address}`).digest('base64url');
    const query = (sql: string, args?: Parameters<PgDb['rows']>[1]) => this.db.rows(sql, args);
    // Windows past are cleared, so the table holds at most the addresses of the last hour.
    await query(`DELETE FROM ${TABLE} WHERE window_start_ms <= ?`, [now - HOUR_MS]);
    if ((await takeInWindow(query, this.#window, subject, now)) !== null) return 0;
    return waitInWindow(query, this.#window, subject, now);
  }
}
