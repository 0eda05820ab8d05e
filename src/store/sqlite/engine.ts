// SQLite as a store's engine (engine.ts), on one libsql connection, whose calls are synchronous. A read
// snapshot holds the connection's transaction across its awaits (snapshots take turns, and writes wait for
// the open one); a write runs all its statements in one turn. One process writes the file at a time (BEGIN
// IMMEDIATE), so writes commit in the order they begin. Nothing tells other processes that something was
// written: they look. The named lock is a row with a time to live, renewed by its holder.
import type { Dialect, Engine, NamedLocks, Query, QueryArg } from '../engine.js';
import type { Db, SqlStatement, SqlValue } from './db.js';

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
  const read: Query = async (sql, args) => db.execute(sql, values(args));
  // The store's own reads too: the sync compares what it stores against them, so they see what is committed.
  const query: Query = async (sql, args) => {
    // After the open snapshot, in the same turn as the look that found none.
    for (let wait = db.snapshotWait(); wait; wait = db.snapshotWait()) await wait;
    return db.execute(sql, values(args));
  };
  return {
    name: 'sqlite',
    dialect: SQLITE,
    query,
    read,
    /**
     * The work's statements are gathered, then run in one transaction in one turn (the connection's calls are
     * synchronous): nothing else of this process runs between them, and no other connection waits on one of
     * this process half done. So their rows are not seen inside the work: a statement that returns some is
     * refused there (read before the write, or in a statement of its own).
     */
    async write(work) {
      const statements: SqlStatement[] = [];
      const result = await work(async (sql, args) => {
        if (db.returnsRows(sql)) throw new Error(`a write on SQLite sees no rows: ${sql.slice(0, 60)}`);
        statements.push({ sql, args: values(args) });
        return [];
      });
      for (let wait = db.snapshotWait(); wait; wait = db.snapshotWait()) await wait;
      if (statements.length > 0) db.batch(statements);
      return result;
    },
    snapshot: (work) => db.snapshot(() => work(read)),
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
