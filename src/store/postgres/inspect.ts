// What a Postgres mirror holds, read without changing it (for `invoicing-mcp mirror status`), and forgetting
// it (`mirror forget`: its schema dropped, the rest of the database untouched).

import { countsIn, coverageIn, marksIn } from '../sql-store.js';
import type { MirrorBooksReport } from '../store.js';
import { PgDb } from './db.js';
import { lockHolder } from './engine.js';
import { metaOf } from './open.js';
import { SCHEMA_VERSION } from './schema.js';
import { SCHEMA_NAME } from './schema-name.js';

export interface PostgresMirrorReport extends MirrorBooksReport {
  /** False when the database holds no mirror (yet). */
  exists: boolean;
  /** Who holds the sync lease now (`host/pid/...`); null when no server does. */
  holder: string | null;
  /** The space its tables and indexes take. */
  bytes: number;
}

export async function inspectPostgresMirror(url: string, schema = SCHEMA_NAME): Promise<PostgresMirrorReport> {
  const db = new PgDb(url, schema);
  try {
    const meta = await metaOf(db.rows, db.schema);
    const none = {
      identity: null,
      schemaVersion: null,
      current: false,
      counts: null,
      coverage: null,
      marks: new Map(),
      holder: null,
      bytes: 0,
    };
    if (meta.size === 0) return { exists: false, ...none };
    const schemaVersion = meta.get('schema_version') ?? null;
    const current = schemaVersion === String(SCHEMA_VERSION);
    const bytes = Number(
      await db.value(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = ? AND c.relkind = 'r'`,
        [db.schema],
      ),
    );
    const report = { ...none, exists: true, identity: meta.get('identity') ?? null, schemaVersion, current, bytes };
    if (!current) return report;
    return {
      ...report,
      counts: await countsIn(db.rows),
      coverage: await coverageIn(db.rows),
      marks: await marksIn(db.rows),
      holder: await lockHolder(db.rows, 'sync', db.schema),
    };
  } finally {
    await db.close();
  }
}

export async function forgetPostgresMirror(url: string): Promise<void> {
  const db = new PgDb(url);
  try {
    await db.rows(`DROP SCHEMA IF EXISTS ${SCHEMA_NAME} CASCADE`);
  } finally {
    await db.close();
  }
}
