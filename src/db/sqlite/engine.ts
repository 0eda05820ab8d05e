// SQLite as a store's engine (engine.ts), on one libsql connection. Its calls are synchronous: a transaction
// keeps the connection for its turn (snapshots and writes wait for each other), and a statement on its own
// waits for an open write, so none lands inside another's transaction half written. One process writes the
// file at a time (BEGIN IMMEDIATE), so writes commit in the order they begin. Nothing tells other processes
// that something was written: they look. The named lock is a row with a time to live, renewed by its holder.
import type { Dialect, Engine, NamedLocks, Query, QueryArg } from '../engine.js';
import type { Db, SqlValue } from './db.js';

/** SQLite folds the letter case of ASCII only; LIKE does so already. */
const SQLITE: Dialect = {
  equalsNoCase: (expression) => `${expression} = ? COLLATE NOCASE`,
  likeNoCase: (column) => `${column} LIKE ? ESCAPE '\\'`,
  noCaseKey: (column) => `${column} COLLATE NOCASE`,
  anyOf: (column, ids) => ({ sql: `${column} IN (${ids.map(() => '?').join(', ')})`, args: [...ids] }),
};

const values = (args: readonly QueryArg[] | undefined): SqlValue[] => (args ?? []) as SqlValue[];

/** The named locks: each holder's time to live lets another process take over from one that vanished. */
export const LOCKS_TABLE = 'CREATE TABLE IF NOT EXISTS lease (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_ms INTEGER NOT NULL)';

function leaseLocks(query: Query): NamedLocks {
  return {
    async take(name, holder, ttlMs, nowMs) {
      await query(
        `INSERT INTO lease (name, holder, expires_ms) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
         WHERE lease.holder = excluded.holder OR lease.expires_ms < ?`,
        [name, holder, nowMs + ttlMs, nowMs],
      );
      return (await this.holder(name)) === holder;
    },
    async release(name, holder) {
      await query('DELETE FROM lease WHERE name = ? AND holder = ?', [name, holder]);
    },
    async holder(name) {
      const [row] = await query('SELECT holder FROM lease WHERE name = ?', [name]);
      return row ? String(row[0]) : null;
    },
  };
}

export function sqliteEngine(db: Db): Engine {
  const inTransaction: Query = async (sql, args) => db.execute(sql, values(args));
  const query: Query = async (sql, args) => {
    for (let wait = db.writeWait(); wait; wait = db.writeWait()) await wait;
    return db.execute(sql, values(args));
  };
  return {
    name: 'sqlite',
    dialect: SQLITE,
    query,
    write: (work) => db.transaction(() => work(inTransaction)),
    snapshot: (work) => db.snapshot(() => work(inTransaction)),
    async insert(on, sqlOf, rows) {
      const first = rows[0];
      if (!first) return;
      const sql = sqlOf(`(${first.map(() => '?').join(', ')})`);
      for (const row of rows) await on(sql, row);
    },
    inTurn: async () => undefined,
    notify: async () => undefined,
    locks: leaseLocks(query),
  };
}
