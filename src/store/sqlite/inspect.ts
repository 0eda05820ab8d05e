// What a mirror file holds, read without changing it (for `invoicing-mcp mirror status` and `forget`).

import { holderIsGone, localPid } from '../lease-holder.js';
import { countsIn, coverageIn, marksIn } from '../sql-store.js';
import type { MirrorBooksReport } from '../store.js';
import { Db, type SqlValue } from './db.js';
import { sqliteEngine } from './engine.js';
import { SCHEMA_VERSION } from './schema.js';

export interface MirrorFileReport extends MirrorBooksReport {
  /** Epoch ms until which a live server holds the sync lease; null when none does. */ leaseUntil: number | null;
  /** The process of this machine that holds or held the lease, when it is gone (a crash): the next start takes over. */
  goneHolderPid: number | null;
}

function value(db: Db, sql: string, args: SqlValue[] = []): SqlValue {
  try {
    return db.value(sql, args);
  } catch {
    return null;
  }
}

export async function inspectMirrorFile(path: string): Promise<MirrorFileReport> {
  const db = new Db(path);
  try {
    db.exec('PRAGMA query_only = ON');
    const schemaVersion = value(db, "SELECT value FROM meta WHERE key = 'schema_version'") as string | null;
    const identity = value(db, "SELECT value FROM meta WHERE key = 'identity'") as string | null;
    const current = schemaVersion === String(SCHEMA_VERSION);
    const holder = value(db, "SELECT holder FROM lease WHERE name = 'sync'") as string | null;
    const expires = value(db, "SELECT expires_ms FROM lease WHERE name = 'sync' AND expires_ms > ?", [Date.now()]) as number | null;
    const gone = holder !== null && holderIsGone(holder);
    const leaseUntil = gone ? null : expires;
    const goneHolderPid = gone ? localPid(holder) : null;
    if (!current) return { identity, schemaVersion, current, counts: null, coverage: null, marks: new Map(), leaseUntil, goneHolderPid };
    const { query } = sqliteEngine(db);
    return {
      identity,
      schemaVersion,
      current,
      counts: await countsIn(query),
      coverage: await coverageIn(query),
      marks: await marksIn(query),
      leaseUntil,
      goneHolderPid,
    };
  } finally {
    db.close();
  }
}
