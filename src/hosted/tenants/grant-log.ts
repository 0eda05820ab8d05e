// The audit log of grants: when, which business and key, which client, and what happened (granted, denied,
// revoked, ended). It never holds a secret or a token.

import { num, str } from '../../store/cells.js';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';

export type GrantEvent = 'granted' | 'denied' | 'ended';

export interface GrantLogEntry {
  at: string;
  event: GrantEvent;
  grantId: string | null;
  clientId: string | null;
  keyId: string | null;
  businessId: number | null;
  detail: string | null;
}

export type GrantLogInput = Omit<GrantLogEntry, 'at'>;

export class GrantLog {
  constructor(readonly db: PgDb) {}

  async add(entry: GrantLogInput): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${HOSTED_SCHEMA}.grant_log (event, grant_id, client_id, key_id, business_id, detail) VALUES (?, ?, ?, ?, ?, ?)`,
      [entry.event, entry.grantId, entry.clientId, entry.keyId, entry.businessId, entry.detail],
    );
  }

  /** The grants ever made with a key. */
  async grantsOf(keyId: string): Promise<string[]> {
    const rows = await this.db.rows(`SELECT DISTINCT grant_id FROM ${HOSTED_SCHEMA}.grant_log WHERE key_id = ? AND event = 'granted'`, [
      keyId,
    ]);
    return rows.map((r) => str(r[0]));
  }

  /** The latest entries, newest first. */
  async latest(limit = 100): Promise<GrantLogEntry[]> {
    const rows = await this.db.rows(
      `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), event, grant_id, client_id, key_id, business_id, detail
       FROM ${HOSTED_SCHEMA}.grant_log ORDER BY at DESC LIMIT ?`,
      [limit],
    );
    const orNull = (v: unknown): string | null => (v === null ? null : str(v as string));
    return rows.map((r) => ({
      at: str(r[0]),
      event: str(r[1]) as GrantEvent,
      grantId: orNull(r[2]),
      clientId: orNull(r[3]),
      keyId: orNull(r[4]),
      businessId: r[5] === null ? null : num(r[5]),
      detail: orNull(r[6]),
    }));
  }
}
