// Preparing the mirror's schema in a Postgres database: made when missing, migrated in place from an older
// version a migration leads from, rebuilt when of another version (or, for the embedded sandbox, of another
// start), refused when it holds another key's books. Processes starting together prepare it one at a time
// (a lock held for the transaction).

import { str } from '../cells.js';
import { SANDBOX_IDENTITY } from '../location.js';
import type { PgDb, Query } from './db.js';
import { lockKeys } from './engine.js';
import { MIGRATIONS, SCHEMA, SCHEMA_VERSION } from './schema.js';

export class PostgresMirrorOfAnotherKey extends Error {
  constructor(where: string) {
    super(`the Postgres mirror at ${where} holds the books of another key or service`);
    this.name = 'PostgresMirrorOfAnotherKey';
  }
}

/** The mirror's meta values (schema_version, identity), none when it has no schema yet. */
export async function metaOf(query: Query, schema: string): Promise<Map<string, string>> {
  const [[exists] = []] = await query(`SELECT to_regclass('${schema}.meta') IS NOT NULL`);
  if (exists !== true) return new Map();
  return new Map((await query(`SELECT key, value FROM ${schema}.meta`)).map(([k, v]) => [str(k), str(v)]));
}

export async function prepareSchema(db: PgDb, identity: string, where: string): Promise<void> {
  await db.transaction(async (query) => {
    await query('SELECT pg_advisory_xact_lock(?, ?)', lockKeys('setup', db.schema));
    const meta = await metaOf(query, db.schema);
    const owner = meta.get('identity') ?? null;
    const version = meta.get('schema_version') ?? null;
    const sandboxes = owner?.startsWith(SANDBOX_IDENTITY) && identity.startsWith(SANDBOX_IDENTITY);
    if (owner !== null && owner !== identity && !sandboxes) throw new PostgresMirrorOfAnotherKey(where);
    const older = version !== null && version !== String(SCHEMA_VERSION);
    // What an older version held is kept where a migration leads from it; else the mirror is read again.
    const migration = older && owner === identity ? MIGRATIONS[version] : undefined;
    // A mirror of this version and key runs no DDL: each CREATE INDEX IF NOT EXISTS takes a SHARE lock on its
    // table until this transaction commits, one table after another, which deadlocks with the writes of a
    // process already at work on the mirror (a second process joining it).
    if (version === String(SCHEMA_VERSION) && owner === identity) return;
    if ((older && !migration) || (owner !== identity && sandboxes)) await query(`DROP SCHEMA ${db.schema} CASCADE`);
    await query(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
    for (const statement of [...SCHEMA, ...(migration ?? [])]) await query(statement);
    await query('INSERT INTO meta (key, value) VALUES (?, ?), (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      'schema_version',
      String(SCHEMA_VERSION),
      'identity',
      identity,
    ]);
  });
}
