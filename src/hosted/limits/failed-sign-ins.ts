// Sign-ins that end in no grant, counted before a secret reaches the service: per sign-in page, per client
// address and per key ID, each in a fixed window, on Postgres so every process of the deployment counts
// alike. A check takes a place in all three counts at once (in flight ones count, so guesses sent together
// are held together) and keeps it, right key or wrong, until Allow makes a grant with it. Subjects are
// stored as a keyed hash: no address, page id or key ID in the clear. A limit per key ID never holds back an
// owner the vault knows: it recognises their secret first.
import { createHmac } from 'node:crypto';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import { takeInWindow, waitInWindow } from './window-count.js';

const TABLE = `${HOSTED_SCHEMA}.sign_in_failures`;

export type Counted = 'page' | 'address' | 'key';

export interface FailureLimits {
  /** Checks ending in no grant each may have in a window. */
  max: Record<Counted, number>;
  windowMs: number;
}

export const FAILURE_LIMITS: FailureLimits = { max: { page: 3, address: 5, key: 3 }, windowMs: 15 * 60_000 };

export interface Attempted {
  page: string;
  address: string;
  keyId: string;
}

/** A place taken: what to give back when Allow made a grant. */
export interface Ticket {
  places: { subject: string; windowStartMs: number }[];
}

export type Taken = { ticket: Ticket } | { full: Counted; waitMs: number };

const ORDER: readonly Counted[] = ['page', 'address', 'key'];

class Full {
  constructor(
    readonly counted: Counted,
    readonly waitMs: number,
  ) {}
}

export class FailedSignIns {
  constructor(
    readonly db: PgDb,
    /** Keys the hash the subjects are stored under. */
    readonly hashKey: string,
    readonly now: () => number,
    readonly limits: FailureLimits = FAILURE_LIMITS,
  ) {}

  #subject(counted: Counted, value: string): string {
    return createHmac('sha256', this.hashKey).update(`sign-in failures\n${counted}\n${value}`).digest('base64url');
  }

  /** A place in every count for one check, or which count is full and how long until it has room. */
  async take(attempt: Attempted): Promise<Taken> {
    const now = this.now();
    const values: Record<Counted, string> = { page: attempt.page, address: attempt.address, key: attempt.keyId };
    // Windows past are cleared on their own (not inside the counting, where they could hold another's rows).
    await this.db.rows(`DELETE FROM ${TABLE} WHERE window_start_ms <= ?`, [now - this.limits.windowMs]);
    try {
      return await this.db.transaction(async (query) => {
        const places: Ticket['places'] = [];
        // Always in the same order, so that checks counted under shared subjects never wait on each other in a circle.
        for (const counted of ORDER) {
          const subject = this.#subject(counted, values[counted]);
          const window = { table: TABLE, windowMs: this.limits.windowMs, max: this.limits.max[counted] };
          const windowStartMs = await takeInWindow(query, window, subject, now);
          if (windowStartMs !== null) {
            places.push({ subject, windowStartMs });
            continue;
          }
          throw new Full(counted, await waitInWindow(query, window, subject, now));
        }
        return { ticket: { places } };
      });
    } catch (err) {
      if (err instanceof Full) return { full: err.counted, waitMs: err.waitMs };
      throw err;
    }
  }

  /** Allow made a grant with the key (or the check never reached the service): its places are given back. */
  async giveBack(ticket: Ticket): Promise<void> {
    for (const { subject, windowStartMs } of ticket.places) {
      await this.db.rows(`UPDATE ${TABLE} SET count = count - 1 WHERE subject = ? AND window_start_ms = ? AND count > 0`, [
        subject,
        windowStartMs,
      ]);
    }
  }
}
