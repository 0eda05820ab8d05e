// Postgres as a store's engine (engine.ts): statements on a small pool (PgDb), each transaction on one
// connection of it; the named locks and the LISTEN on the process's one session connection (PgSession). A
// named lock is a session advisory lock, held while the connection lives (a live connection is a live holder:
// no time to live applies), its holder's name written beside it for whoever asks. Every lock is keyed by the
// schema, so each schema's store has its own.
import { createHash } from 'node:crypto';
import { str } from '../cells.js';
import type { Dialect, Engine, NamedLocks, Query } from '../engine.js';
import type { PgDb } from './db.js';
import type { PgSession } from './session.js';

/** Letter case aside as SQLite's NOCASE takes it (lower() folds ASCII only in the "C" collation). */
const POSTGRES: Dialect = {
  equalsNoCase: (expression) => `lower(${expression}) = lower(?::text)`,
  likeNoCase: (column) => `${column} ILIKE ? ESCAPE '\\'`,
  noCaseKey: (column) => `lower(${column})`,
  anyOf: (column, ids) => ({ sql: `${column} = ANY(?::bigint[])`, args: [ids] }),
};

/** The two 31-bit keys of a named advisory lock in `schema` (each schema's locks its own). */
export function lockKeys(name: string, schema: string): [number, number] {
  const digest = createHash('sha256').update(`invoicing-mcp|${schema}|${name}`).digest();
  return [digest.readUInt32BE(0) & 0x7fffffff, digest.readUInt32BE(4) & 0x7fffffff];
}

/** Who holds the named lock: the name written beside it while some connection holds the lock. */
export async function lockHolder(query: Query, name: string, schema: string): Promise<string | null> {
  const [classid, objid] = lockKeys(name, schema);
  const [row] = await query(
    `SELECT COALESCE((SELECT holder FROM lease WHERE name = ?), 'unknown') FROM pg_locks
     WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = ?::bigint::oid AND objid = ?::bigint::oid AND objsubid = 2`,
    [name, classid, objid],
  );
  return row ? str(row[0]) : null;
}

/** Who holds each named lock, for `mirror status`: the lock itself is the advisory lock. */
export const LOCKS_TABLE = 'CREATE TABLE IF NOT EXISTS lease (name text PRIMARY KEY, holder text NOT NULL)';

function advisoryLocks(db: PgDb, session: PgSession): NamedLocks {
  return {
    async take(name, holder) {
      if (!(await session.tryLock(lockKeys(name, db.schema)))) return false;
      await db.rows('INSERT INTO lease (name, holder) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder', [
        name,
        holder,
      ]);
      return true;
    },
    async release(name, holder) {
      await db.rows('DELETE FROM lease WHERE name = ? AND holder = ?', [name, holder]);
      await session.unlock(lockKeys(name, db.schema));
    },
    holder: (name) => lockHolder(db.rows, name, db.schema),
  };
}

const MOST_ARGUMENTS = 65_535;

/** Where the processes on one schema hear of what was written on `channel`. */
const channelOf = (schema: string, channel: string): string => `${schema}_${channel}`;

export function postgresEngine(db: PgDb, session: PgSession): Engine {
  return {
    name: 'postgres',
    dialect: POSTGRES,
    query: db.rows,
    read: db.rows,
    write: (work) => db.transaction(work),
    snapshot: (work) => db.snapshot(work),
    async insert(query, sqlOf, rows) {
      // A statement takes at most 65,535 arguments.
      const perStatement = Math.max(1, Math.floor(MOST_ARGUMENTS / (rows[0]?.length ?? 1)));
      for (let i = 0; i < rows.length; i += perStatement) {
        const some = rows.slice(i, i + perStatement);
        await query(sqlOf(some.map((r) => `(${r.map(() => '?').join(', ')})`).join(', ')), some.flat());
      }
    },
    inTurn: async (query, name) => void (await query('SELECT pg_advisory_xact_lock(?, ?)', lockKeys(name, db.schema))),
    notify: async (query, channel) => void (await query(`NOTIFY ${channelOf(db.schema, channel)}`)),
    listen: (channel, onNotified) => session.listen(channelOf(db.schema, channel), onNotified),
    locks: advisoryLocks(db, session),
  };
}
