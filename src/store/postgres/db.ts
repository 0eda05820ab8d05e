// The connections the mirror's SQL runs on in Postgres, through node-postgres (`pg`): a small pool for reads
// and writes, every connection in the mirror's own schema. Queries are written with `?` placeholders, as
// the SQL shared with SQLite is, and numbered here. Rows come back as arrays; numeric and bigint values as
// strings, which the readers keep (amounts) or count with (ids). No error leaves here with the password.
import pg from 'pg';
import { DatabaseError } from '../../core/db-error.js';
import { MirrorStoreFull } from '../../core/store-full.js';
import { DatabaseUnreachable, isUnreachable } from '../../core/unreachable.js';
import type { Cells } from '../cells.js';
import type { Query, QueryArg } from '../engine.js';
import { checkedSchemaName, SCHEMA_NAME } from './schema-name.js';

export { DatabaseError };

/** The connection string's password, as written and decoded, never to be shown. */
export function secretsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    const secrets = [parsed.password, ...['password', 'sslpassword'].map((p) => parsed.searchParams.get(p) ?? '')];
    return secrets.flatMap((s) => [s, safeDecode(s)]).filter((s) => s.length > 0);
  } catch {
    return [url];
  }
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export function scrubbed(err: unknown, secrets: readonly string[]): DatabaseError | MirrorStoreFull {
  let message = err instanceof Error ? err.message : String(err);
  for (const secret of secrets) message = message.split(secret).join('***');
  const code = (err as { code?: unknown } | null)?.code;
  // 53100: the server's disk is full. What is stored stays; writes resume when space returns.
  if (code === '53100') return new MirrorStoreFull(message);
  const said = /postgres/i.test(message) ? message : `Postgres: ${message}`;
  if (isUnreachable(err)) return new DatabaseUnreachable(said, typeof code === 'string' ? code : undefined);
  return new DatabaseError(said, typeof code === 'string' ? code : undefined);
}

/** `?` placeholders numbered `$1`, `$2`, ... (the shared SQL holds no `?` of its own). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** A query's argument: a value, or an array (for `= ANY(?)`). */
export type PgArg = QueryArg;
export type { Query };

/**
 * A pool whose connections are listened to while they are held. pg-pool stops listening for a connection's
 * errors when it hands the connection out: one lost then (the server killed, the backend terminated) would be
 * an error nobody handles, which ends the process. The listener is added as the pool hands the connection out
 * (its 'acquire' event, at once: a connection's messages may be read before an awaiting caller runs) and taken
 * off when it is given back; the connections lost while held are remembered, and not given back for reuse.
 */
export function watchedPool(config: pg.PoolConfig): { pool: pg.Pool; lostWhileHeld: WeakSet<pg.PoolClient> } {
  const pool = new pg.Pool(config);
  const lostWhileHeld = new WeakSet<pg.PoolClient>();
  function lost(this: pg.PoolClient): void {
    lostWhileHeld.add(this);
  }
  pool.on('acquire', (client) => client.on('error', lost));
  pool.on('release', (_err, client) => client.removeListener('error', lost));
  // An idle connection that fails is dropped by the pool; the next query makes a new one.
  pool.on('error', () => undefined);
  return { pool, lostWhileHeld };
}

/** Connections shared by the mirrors of several schemas (shared.ts), as a PgDb uses them. */
export interface SharedPool {
  readonly pool: pg.Pool;
  /** The pool's connections lost while they were held (see watchedPool). */
  readonly lostWhileHeld: WeakSet<pg.PoolClient>;
  readonly secrets: string[];
  /** Sets the connection's search_path to the schema unless it is already. */
  inSchema(client: pg.PoolClient, schema: string): Promise<void>;
}

export class PgDb {
  readonly #pool: pg.Pool;
  readonly #lostWhileHeld: WeakSet<pg.PoolClient>;
  readonly secrets: string[];
  readonly schema: string;
  /** Connections shared with other schemas' mirrors, each set to this schema before use; null: a pool of its own. */
  readonly #shared: SharedPool | null;

  constructor(
    readonly url: string,
    schema = SCHEMA_NAME,
    shared: SharedPool | null = null,
  ) {
    this.schema = checkedSchemaName(schema);
    this.#shared = shared;
    this.secrets = shared?.secrets ?? secretsOf(url);
    if (shared) {
      this.#pool = shared.pool;
      this.#lostWhileHeld = shared.lostWhileHeld;
      return;
    }
    // The schema is set when each connection starts (a startup option, kept after the URL's own), not by a
    // query on connect: pg-pool hands a new connection to its first query at once, and two queries at a time
    // on one connection are deprecated in pg 8 and refused in pg 9.
    const own = new URL(url).searchParams.get('options');
    const options = `${own ? `${own} ` : ''}-c search_path=${this.schema}`;
    const { pool, lostWhileHeld } = watchedPool({ connectionString: url, options, max: 4, keepAlive: true, idleTimeoutMillis: 30_000 });
    this.#pool = pool;
    this.#lostWhileHeld = lostWhileHeld;
  }

  #fail(err: unknown): never {
    throw scrubbed(err, this.secrets);
  }

  rows: Query = async (sql, args = []) => {
    // On shared connections, one that is set to this schema first (a connection of its own, no transaction).
    if (this.#shared) return this.#onOneConnection(null, (query) => query(sql, args));
    try {
      const r = await this.#pool.query({ text: numbered(sql), values: [...args], rowMode: 'array' });
      return r.rows as Cells[];
    } catch (err) {
      this.#fail(err);
    }
  };

  async value(sql: string, args: readonly PgArg[] = []): Promise<Cells[number]> {
    return (await this.rows(sql, args))[0]?.[0] ?? null;
  }

  /** One transaction on one connection: all of it or none. */
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T> {
    return this.#onOneConnection('BEGIN', work);
  }

  /** Reads on one connection that all see one state of the database (a read-only repeatable read). */
  snapshot<T>(work: (query: Query) => Promise<T>): Promise<T> {
    return this.#onOneConnection('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);
  }

  /** The work on one connection, in a transaction begun by `begin` (none when null). */
  async #onOneConnection<T>(begin: string | null, work: (query: Query) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect().catch((err: unknown) => this.#fail(err));
    // A connection lost while held (watchedPool) fails its queries on its own, and is not given back.
    let broken = false;
    // One query at a time on the connection (pg refuses a second while one runs): asked side by side, they queue.
    let last: Promise<unknown> = Promise.resolve();
    // The database's errors leave without the password; the work's own (a refused question) as they are.
    const onClient = async (sql: string, args: readonly PgArg[] = []): Promise<Cells[]> => {
      try {
        return (await client.query({ text: numbered(sql), values: [...args], rowMode: 'array' })).rows as Cells[];
      } catch (err) {
        this.#fail(err);
      }
    };
    const query: Query = (sql, args = []) => {
      const run = last.then(() => onClient(sql, args));
      last = run.catch(() => undefined);
      return run;
    };
    try {
      await this.#shared?.inSchema(client, this.schema).catch((err: unknown) => {
        broken = true;
        this.#fail(err);
      });
      if (begin !== null) await onClient(begin);
      const result = await work(query);
      if (begin !== null) await onClient('COMMIT');
      return result;
    } catch (err) {
      // A connection that cannot even roll back is not given back to the pool.
      if (!broken && begin !== null)
        broken = await client.query('ROLLBACK').then(
          () => false,
          () => true,
        );
      throw err;
    } finally {
      client.release(broken || this.#lostWhileHeld.has(client));
    }
  }

  /** Ends its own pool; shared connections are ended by their owner. */
  async close(): Promise<void> {
    if (!this.#shared) await this.#pool.end().catch(() => undefined);
  }
}
