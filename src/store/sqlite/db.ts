// The SQLite connection the mirror's SQL runs on: libsql's own driver (the engine and prebuilt binaries
// that @libsql/client wraps), each statement prepared once and rows read as plain arrays. Read through the
// wrapper, rows cost about four times as much: an answer over thousands of invoices spent most of its time
// there. Calls are synchronous, as the wrapper's local calls were beneath their promises.
import Database from 'libsql';
import { MirrorStoreFull } from '../../core/store-full.js';
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

  /** True while a read snapshot holds this connection's transaction (writes wait for it: see snapshotWait). */
  #snapshotOpen = false;
  #snapshotClosed: Promise<void> = Promise.resolve();

  /**
   * `read` in one read transaction: every query it makes sees one state of the file, whatever other processes
   * commit meanwhile. Snapshots take turns; writes of this process wait for the open one (snapshotWait).
   */
  async snapshot<T>(read: () => Promise<T>): Promise<T> {
    while (this.#snapshotOpen) await this.#snapshotClosed;
    let close = (): void => undefined;
    this.#snapshotClosed = new Promise<void>((resolve) => (close = resolve));
    this.#snapshotOpen = true;
    this.#watched(() => this.#native.exec('BEGIN'));
    try {
      return await read();
    } finally {
      if (this.#native.inTransaction) this.#watched(() => this.#native.exec('COMMIT'));
      this.#snapshotOpen = false;
      close();
    }
  }

  /**
   * Null when no snapshot holds the connection, else a promise of its end. A writer looks again after each
   * wait and writes in the same turn as the look that found null, so no snapshot opens in between.
   */
  snapshotWait(): Promise<void> | null {
    return this.#snapshotOpen ? this.#snapshotClosed : null;
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

  /** Whether the statement returns rows (a SELECT, a RETURNING). */
  returnsRows(sql: string): boolean {
    return this.#watched(() => this.#prepared(sql).reader);
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
