// Key IDs and secrets the service has just said are right, remembered for a few minutes on Postgres so that
// a Continue posted again (the same page, another, another process) spends no sign-in at the service; and
// checks under way, so that right answers posted together make one check, not one each. A pair is found by
// a keyed hash of key ID and secret together: neither is stored, nor can the rows be searched for a key ID.
import { createHmac } from 'node:crypto';
import { num, str } from '../../store/cells.js';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import type { CheckedKey } from './key-check.js';

const TABLE = `${HOSTED_SCHEMA}.verified_keys`;

export interface VerifiedKeyFigures {
  /** How long a pair the service accepted is taken as right without asking it again. */
  rememberMs: number;
  /** How long a check under way holds its pair before another may check it (its longest: budget wait and request). */
  checkingMs: number;
}

export const VERIFIED_KEYS: VerifiedKeyFigures = { rememberMs: 10 * 60_000, checkingMs: 20_000 };

export interface KeyPair {
  keyId: string;
  secret: string;
}

/** What the memory holds for a pair: the key as checked, or a check under way elsewhere; null: neither. */
export type Recalled = { checked: CheckedKey } | { checking: true } | null;

export class VerifiedKeys {
  constructor(
    readonly db: PgDb,
    /** Keys the hash pairs are found by. */
    readonly hashKey: string,
    readonly now: () => number,
    readonly figures: VerifiedKeyFigures = VERIFIED_KEYS,
  ) {}

  #subject({ keyId, secret }: KeyPair): string {
    return createHmac('sha256', this.hashKey).update(`verified key\n${keyId}\n${secret}`).digest('base64url');
  }

  /**
   * The key when the pair was checked lately; else the turn to check it, taken in one statement, or that
   * another has it (null: that check ended in the moment between, without the key).
   */
  async recallOrClaim(pair: KeyPair): Promise<Recalled | { claimed: true }> {
    const now = this.now();
    const subject = this.#subject(pair);
    await this.db.rows(`DELETE FROM ${TABLE} WHERE until_ms <= ?`, [now]);
    const claimed = await this.db.rows(
      `INSERT INTO ${TABLE} (subject, checked, until_ms) VALUES (?, NULL, ?)
       ON CONFLICT (subject) DO UPDATE SET checked = NULL, until_ms = excluded.until_ms WHERE ${TABLE}.until_ms <= ?
       RETURNING subject`,
      [subject, now + this.figures.checkingMs, now],
    );
    if (claimed.length > 0) return { claimed: true };
    return this.recall(pair);
  }

  /** The key when the pair was checked lately, that a check of it is under way, or null: neither. */
  async recall(pair: KeyPair): Promise<Recalled> {
    const [row] = await this.db.rows(`SELECT checked, until_ms FROM ${TABLE} WHERE subject = ?`, [this.#subject(pair)]);
    if (!row || num(row[1]) <= this.now()) return null;
    return row[0] === null ? { checking: true } : { checked: JSON.parse(str(row[0])) as CheckedKey };
  }

  /** The service said the pair is right: taken as right for the while. */
  async remember(pair: KeyPair, checked: CheckedKey): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${TABLE} (subject, checked, until_ms) VALUES (?, ?, ?)
       ON CONFLICT (subject) DO UPDATE SET checked = excluded.checked, until_ms = excluded.until_ms`,
      [this.#subject(pair), JSON.stringify(checked), this.now() + this.figures.rememberMs],
    );
  }

  /** The check ended without the key (wrong, refused, no answer): the next may check it at once. */
  async release(pair: KeyPair): Promise<void> {
    await this.db.rows(`DELETE FROM ${TABLE} WHERE subject = ? AND checked IS NULL`, [this.#subject(pair)]);
  }
}
