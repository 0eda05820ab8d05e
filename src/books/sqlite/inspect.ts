// What a mirror file holds, read without changing it (for `invoicing-mcp mirror status` and `forget`).
import { pathToFileURL } from 'node:url';
import type { Client } from '@libsql/client';
import { sqliteWriter } from './writer.js';
import { SCHEMA_VERSION } from './schema.js';
import type { KindMark } from '../store.js';
import type { LinesCoverage, MirroredKind } from '../types.js';

export interface MirrorFileReport {
  /** `<base URL>|<key ID>` the file belongs to. */
  identity: string | null;
  schemaVersion: string | null;
  /** False when the file is of another schema version (a server would rebuild it). */
  current: boolean;
  counts: Record<MirroredKind | 'lines', number> | null;
  coverage: LinesCoverage | null;
  marks: Map<MirroredKind, KindMark>;
  /** Epoch ms until which a server holds the sync lease; null when none does. */
  leaseUntil: number | null;
}

async function value(db: Client, sql: string, args: (string | number)[] = []): Promise<unknown> {
  try {
    return (await db.execute({ sql, args })).rows[0]?.[0] ?? null;
  } catch {
    return null;
  }
}

export async function inspectMirrorFile(path: string): Promise<MirrorFileReport> {
  const { createClient } = await import('@libsql/client');
  const db = createClient({ url: pathToFileURL(path).href, intMode: 'number' });
  try {
    await db.execute('PRAGMA query_only = ON');
    const schemaVersion = (await value(db, "SELECT value FROM meta WHERE key = 'schema_version'")) as string | null;
    const identity = (await value(db, "SELECT value FROM meta WHERE key = 'identity'")) as string | null;
    const current = schemaVersion === String(SCHEMA_VERSION);
    const leaseUntil = (await value(db, "SELECT expires_ms FROM lease WHERE name = 'sync' AND expires_ms > ?", [Date.now()])) as number | null;
    if (!current) return { identity, schemaVersion, current, counts: null, coverage: null, marks: new Map(), leaseUntil };
    const store = sqliteWriter(db);
    return { identity, schemaVersion, current, counts: await store.counts(), coverage: await store.coverage(), marks: await store.marks(), leaseUntil };
  } finally {
    db.close();
  }
}
