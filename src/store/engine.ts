// The seam between a store and a database engine: SQL executed outside a transaction, in a write transaction
// (all of it or none) and in a read snapshot (one state of the database), each through a query function of
// `?` placeholders; the engine's dialect; a named lock a holder keeps while it lives; and, where the engine
// has one, a notice to the other processes on the database that something was written. A store's logic is
// written once above it (src/store/sql-store.ts); each engine is a file beside its connection.
import type { Arg, Cells } from './cells.js';

/** A query's argument: a value, or a list of ids (made only by the dialect's `anyOf`). */
export type QueryArg = Arg | readonly number[];
/** Rows as arrays of their columns, in the SELECT's order; `?` placeholders. */
export type Query = (sql: string, args?: readonly QueryArg[]) => Promise<Cells[]>;

export interface Dialect {
  /** The expression equals the next argument, letter case aside. */
  equalsNoCase(expression: string): string;
  /** The column matches the next argument, a LIKE pattern escaped with `\`, letter case aside. */
  likeNoCase(column: string): string;
  /** What an index keys a column on to find it letter case aside (as equalsNoCase compares it). */
  noCaseKey(column: string): string;
  /** The column is one of the ids: SQLite a list of placeholders, Postgres one array. */
  anyOf(column: string, ids: readonly number[]): { sql: string; args: QueryArg[] };
}

/** A lock by name, held by one holder at a time, its name written beside it for whoever asks who holds it. */
export interface NamedLocks {
  /** Takes or keeps the lock for `holder`; false when another holds it (SQLite: until its time to live ends). */
  take(name: string, holder: string, ttlMs: number, nowMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
  /** Who holds it now; null when no one (SQLite: expired or not). */
  holder(name: string): Promise<string | null>;
}

export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  readonly dialect: Dialect;
  /** A statement on its own (SQLite: once the connection's open read snapshot has ended). */
  readonly query: Query;
  /** A read on its own, which never waits (SQLite: inside the connection's open snapshot, when one is). */
  readonly read: Query;
  /**
   * One write transaction: all of `work`'s statements or none. SQLite runs them together once `work` has
   * given them all, so inside it they return no rows (one that would is refused).
   */
  write<T>(work: (query: Query) => Promise<T>): Promise<T>;
  /** `work`'s reads as one state of the database, whatever is written meanwhile. */
  snapshot<T>(work: (query: Query) => Promise<T>): Promise<T>;
  /**
   * Rows inserted by the statement `sqlOf(values)` (`values`: the VALUES list), in as few statements as the
   * engine does best: SQLite one prepared statement per row, Postgres all rows in one.
   */
  insert(query: Query, sqlOf: (values: string) => string, rows: readonly (readonly QueryArg[])[]): Promise<void>;
  /**
   * Inside a write: the writes that call it with the same name commit in the order they called it (Postgres:
   * a lock held to the commit; SQLite: a write transaction holds the file alone already).
   */
  inTurn(query: Query, name: string): Promise<void>;
  /** Inside a write: the processes listening on `channel` are told at its commit (SQLite: none listen). */
  notify(query: Query, channel: string): Promise<void>;
  /** Calls back when a process on the database notified `channel`; resolves to what stops it. None on SQLite. */
  readonly listen?: (channel: string, onNotified: () => void) => Promise<() => void>;
  /** Their table (LOCKS_TABLE of the engine's file) is made with the store's own. */
  readonly locks: NamedLocks;
}
