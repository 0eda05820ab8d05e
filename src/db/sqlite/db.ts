// The SQLite connection the mirror's SQL runs on: libsql's own driver (the engine and prebuilt binaries
// that @libsql/client wraps), each statement prepared once and rows read as plain arrays. Read through the
// wrapper, rows cost about four times as much: an answer over thousands of invoices spent most of its time
// there. Calls are synchronous, as the wrapper's local calls were beneath their promises.
import Database from 'libsql';
import { MirrorStoreFull } from '../store-full.js';
import { failureOf, messageOf } from './failure.js';

export type SqlValue = string | number | null;
export interface SqlStatement {
  sql: string;
  args?: readonly SqlValue[];
}

export class Db {
  #native: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  /** Told when a call finds the file damaged (wherever that shows: a read, a write, a prepare). */
  onCorrupt: ((err: unknown) => void) | null = null;

  /** `:memory:` or a file path. */
  constructor(readonly path: string) {
    this.#native = new Database(path);
  }

  #watched<T>(call: () => T): T {
    try {
      return call();
    } catch (err) {
      const failure = failureOf(err);
      if (failure === 'corrupt') this.onCorrupt?.(err);
      if (failure === 'full') throw new MirrorStoreFull(messageOf(err), { cause: err });
      throw err;
    }
  }

  /** The open transaction of this connection (a read snapshot or a write), and the promise of its end. */
  #open: 'read' | 'write' | null = null;
  #closed: Promise<void> = Promise.resolve();

  /**
   * `work` in one transaction (a write holds the file's write lock from its start): its statements run on this connection alone. Transactions take
   * turns; a statement on its own waits for an open write (writeWait). SQLite itself rolls back a transaction
   * that failed for a full disk; rolling back again would fail and hide why, so only an open one is rolled back.
   */
  async #inTransaction<T>(kind: 'read' | 'write', work: () => Promise<T>): Promise<T> {
    while (this.#open) await this.#closed;
    let close = (): void => undefined;
    this.#closed = new Promise<void>((resolve) => (close = resolve));
    this.#open = kind;
    try {
      if (kind === 'write') await this.#beginWrite();
      else this.#watched(() => this.#native.exec('BEGIN'));
      let result: T;
      try {
        result = await work();
      } catch (err) {
        if (this.#native.inTransaction) this.#watched(() => this.#native.exec('ROLLBACK'));
        throw err;
      }
      if (this.#native.inTransaction) this.#watched(() => this.#native.exec('COMMIT'));
      return result;
    } finally {
      this.#open = null;
      close();
    }
  }

  #busyTimeoutMs = 0;

  /** How long a write waits for another connection's (PRAGMA busy_timeout). */
  busyTimeout(ms: number): void {
    this.#busyTimeoutMs = Math.trunc(ms);
    this.exec(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`);
  }

  /**
   * Takes the file's write lock, waiting for another connection's without holding the thread: SQLite's own
   * wait would, and a connection of this process whose transaction is between two statements (awaiting the
   * next) could then never finish it.
   */
  async #beginWrite(): Promise<void> {
    const deadline = Date.now() + this.#busyTimeoutMs;
    this.#native.exec('PRAGMA busy_timeout = 0');
    try {
      for (let wait = 1; ; wait = Math.min(wait * 2, 64)) {
        try {
          return this.#watched(() => void this.#native.exec('BEGIN IMMEDIATE'));
        } catch (err) {
          if (failureOf(err) !== 'busy' || Date.now() >= deadline) throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      this.#native.exec(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`);
    }
  }

  /** `read` in one read transaction: every query it makes sees one state of the file, whatever other processes commit meanwhile. */
  snapshot<T>(read: () => Promise<T>): Promise<T> {
    return this.#inTransaction('read', read);
  }

  /** `work`'s statements in one write transaction: all of them or none. */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.#inTransaction('write', work);
  }

  /**
   * Null when no write transaction holds the connection, else a promise of its end: a statement on its own
   * looks again after each wait, and runs in the same turn as the look that found null.
   */
  writeWait(): Promise<void> | null {
    return this.#open === 'write' ? this.#closed : null;
  }

  /** After close(): carries on with a new connection to the same path (a rebuilt file). */
  reopen(): void {
    this.#native = new Database(this.path);
  }

  #prepared(sql: string): Database.Statement {
    let found = this.#statements.get(sql);
    if (!found) {
      found = this.#native.prepare(sql);
      if (found.reader) found.raw(true);
      this.#statements.set(sql, found);
    }
    return found;
  }

  /** Rows as arrays of their columns, in the SELECT's order. */
  rows(sql: string, args: readonly SqlValue[] = []): SqlValue[][] {
    return this.#watched(() => this.#prepared(sql).all(...args) as SqlValue[][]);
  }

  /** The first column of the first row, or null. */
  value(sql: string, args: readonly SqlValue[] = []): SqlValue {
    return this.rows(sql, args)[0]?.[0] ?? null;
  }

  /** Any statement: its rows when it returns some (a SELECT, a RETURNING), else none. */
  execute(sql: string, args: readonly SqlValue[] = []): SqlValue[][] {
    return this.#watched(() => {
      const statement = this.#prepared(sql);
      if (statement.reader) return statement.all(...args) as SqlValue[][];
      statement.run(...args);
      return [];
    });
  }

  run(sql: string, args: readonly SqlValue[] = []): void {
    this.#watched(() => this.#prepared(sql).run(...args));
  }

  /**
   * Statements in one write transaction: all of them or none. SQLite itself rolls back a transaction that
   * failed for a full disk; rolling back again would fail and hide why, so only an open one is rolled back.
   */
  batch(statements: readonly (SqlStatement | string)[]): void {
    this.#watched(() => {
      this.#native.exec('BEGIN IMMEDIATE');
      try {
        for (const s of statements) {
          if (typeof s === 'string') this.#native.exec(s);
          else this.#prepared(s.sql).run(...(s.args ?? []));
        }
        this.#native.exec('COMMIT');
      } catch (err) {
        if (this.#native.inTransaction) this.#native.exec('ROLLBACK');
        throw err;
      }
    });
  }

  exec(sql: string): void {
    this.#watched(() => this.#native.exec(sql));
  }

  close(): void {
    this.#statements.clear();
    this.#native.close();
  }
}
