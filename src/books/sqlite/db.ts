// The SQLite connection the mirror's SQL runs on: libsql's own driver (the engine and prebuilt binaries
// that @libsql/client wraps), each statement prepared once and rows read as plain arrays. Read through the
// wrapper, rows cost about four times as much: an answer over thousands of invoices spent most of its time
// there. Calls are synchronous, as the wrapper's local calls were beneath their promises.
import Database from 'libsql';

export type SqlValue = string | number | null;
export interface SqlStatement {
  sql: string;
  args?: readonly SqlValue[];
}

export class Db {
  readonly #native: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  /** `:memory:` or a file path. */
  constructor(path: string) {
    this.#native = new Database(path);
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
    return this.#prepared(sql).all(...args) as SqlValue[][];
  }

  /** The first column of the first row, or null. */
  value(sql: string, args: readonly SqlValue[] = []): SqlValue {
    return this.rows(sql, args)[0]?.[0] ?? null;
  }

  run(sql: string, args: readonly SqlValue[] = []): void {
    this.#prepared(sql).run(...args);
  }

  /** Statements in one write transaction: all of them or none. */
  batch(statements: readonly (SqlStatement | string)[]): void {
    this.#native
      .transaction(() => {
        for (const s of statements) {
          if (typeof s === 'string') this.#native.exec(s);
          else this.#prepared(s.sql).run(...(s.args ?? []));
        }
      })
      .immediate();
  }

  exec(sql: string): void {
    this.#native.exec(sql);
  }

  close(): void {
    this.#statements.clear();
    this.#native.close();
  }
}
