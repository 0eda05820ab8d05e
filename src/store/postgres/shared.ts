// Connections that the mirrors of many schemas on one database share in one process (hosted mode: a mirror
// per tenant), so that a process holds a few connections however many tenants answer: one pool, each
// connection set to a mirror's schema before that mirror's query runs on it, and one session connection
// for every mirror's lease and events (session.ts).
import type pg from 'pg';
import type { SharedConnections } from '../shared-connections.js';
import { type SharedPool, secretsOf, watchedPool } from './db.js';
import { type Backoff, PgSession, reconnectBackoff } from './session.js';

/** Connections in the shared pool at most; a query waits for one when all are busy. */
const SHARED_POOL_MAX = 8;

export class SharedPostgres implements SharedPool, SharedConnections {
  readonly engine = 'postgres';
  readonly pool: pg.Pool;
  readonly lostWhileHeld: WeakSet<pg.PoolClient>;
  readonly session: PgSession;
  readonly secrets: string[];
  /** The schema each pooled connection's search_path is set to now. */
  readonly #paths = new WeakMap<pg.PoolClient, string>();

  /** `backoff`: the wait before each try to make the session connection again once it is lost. */
  constructor(
    readonly url: string,
    backoff: Backoff = reconnectBackoff,
  ) {
    this.secrets = secretsOf(url);
    ({ pool: this.pool, lostWhileHeld: this.lostWhileHeld } = watchedPool({
      connectionString: url,
      max: SHARED_POOL_MAX,
      keepAlive: true,
      idleTimeoutMillis: 30_000,
    }));
    this.session = new PgSession(url, this.secrets, backoff);
  }

  /** Sets the connection's search_path to `schema` unless it is already (outside any transaction, so it stays). */
  async inSchema(client: pg.PoolClient, schema: string): Promise<void> {
    if (this.#paths.get(client) === schema) return;
    await client.query(`SET search_path TO ${schema}`);
    this.#paths.set(client, schema);
  }

  async close(): Promise<void> {
    await this.session.close();
    await this.pool.end().catch(() => undefined);
  }
}
