// The one connection of a process that holds what lives only as long as a connection: the sync lease (a
// session advisory lock) and the LISTEN for other processes' events. A process that dies, or loses its
// connection, loses both at once, so another takes the lease over at its next try. The connection asks the
// server to probe it every few seconds (TCP keepalives), so a holder whose machine vanished without closing
// its socket is let go of in about ten seconds rather than the system's two hours; and the holder checks its
// connection with a round trip each time it renews, so it does not go on believing in a lock the server has
// let go of. A lost connection is made again, after a wait that grows while the database stays away (a
// quarter second, doubling up to five), and each listener is told once, to look for what was written meanwhile
// (the events table holds it; the outbox publishes each event once). No loss of the connection ends the process.
// One session may serve several mirrors (hosted mode's tenants, each in its schema): each listens on its own
// channel and takes its own locks, and the session's queries run one at a time.
import pg from 'pg';
import { REAL_TIMERS } from '../../core/timers.js';
import { scrubbed } from './db.js';

const QUERY_TIMEOUT_MS = 5_000;

/** The wait before the `attempt`th try (from 1) to make a lost connection again. */
export type Backoff = (attempt: number) => number;
export const reconnectBackoff: Backoff = (attempt) => Math.min(250 * 2 ** (attempt - 1), 5_000);

export class PgSession {
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #held = new Set<string>();
  #closed = false;
  #timer: unknown = null;
  /** Tries to make the connection again since it was lost. */
  #attempts = 0;
  /** Who listens, by channel (each mirror's schema has its own). */
  readonly #listeners = new Map<string, Set<() => void>>();
  /** Who is told when the connection is lost (what is notified meanwhile goes unheard). */
  readonly #lostListeners = new Set<() => void>();
  /** The channels the current connection listens on. */
  #listening = new Set<string>();
  /** The session's queries, one at a time (pg refuses a second while one runs). */
  #last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly secrets: readonly string[],
    private readonly backoff: Backoff = reconnectBackoff,
  ) {}

  #query(client: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult> {
    const run = this.#last.then(() => client.query(text, values));
    this.#last = run.catch(() => undefined);
    return run;
  }

  #tellAll(): void {
    for (const set of this.#listeners.values()) for (const listener of set) listener();
  }

  async #guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw scrubbed(err, this.secrets);
    }
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.url,
        keepAlive: true,
        keepAliveInitialDelayMillis: 5_000,
        query_timeout: QUERY_TIMEOUT_MS,
      });
      const lost = (): void => this.#lost(client);
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (message) => {
        for (const listener of this.#listeners.get(message.channel) ?? []) listener();
      });
      try {
        await client.connect();
        await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3');
        const channels = [...this.#listeners.keys()];
        for (const channel of channels) await client.query(`LISTEN ${channel}`);
        this.#listening = new Set(channels);
      } catch (err) {
        // What the dead connection still says (its end, after a refusal) must find a listener, or it ends the process.
        client.removeAllListeners();
        client.on('error', () => undefined);
        await client.end().catch(() => undefined);
        throw err;
      }
      this.#client = client;
      return client;
    })().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#held.clear();
    this.#listening = new Set();
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    for (const listener of this.#lostListeners) listener();
    this.#reconnectSoon();
  }

  /** While someone listens, the connection is made again (waiting longer after each failure), and they are told once. */
  #reconnectSoon(): void {
    if (this.#closed || this.#listeners.size === 0 || this.#timer) return;
    this.#timer = REAL_TIMERS.set(
      () => {
        this.#timer = null;
        void this.#connect().then(
          () => {
            this.#attempts = 0;
            this.#tellAll();
          },
          () => this.#reconnectSoon(),
        );
      },
      this.backoff(++this.#attempts),
      true,
    );
  }

  /** Takes the lock (keys: two positive 32-bit integers) or keeps it; false when another connection has it. */
  tryLock(keys: readonly [number, number]): Promise<boolean> {
    return this.#guarded(async () => {
      const id = keys.join('/');
      const client = await this.#connect();
      // A connection cut without a word (its network gone) would leave this process believing it holds a lock
      // the server let go of: one round trip says it is alive, within the query timeout.
      if (this.#held.has(id)) return this.#alive(client);
      const r = await this.#query(client, 'SELECT pg_try_advisory_lock($1, $2) AS taken', [...keys]);
      if (r.rows[0]?.taken === true) this.#held.add(id);
      return this.#held.has(id);
    });
  }

  async #alive(client: pg.Client): Promise<boolean> {
    try {
      await this.#query(client, 'SELECT 1');
      return true;
    } catch {
      this.#lost(client);
      await client.end().catch(() => undefined);
      return false;
    }
  }

  unlock(keys: readonly [number, number]): Promise<void> {
    return this.#guarded(async () => {
      const id = keys.join('/');
      const client = this.#client;
      if (!this.#held.delete(id) || !client) return;
      await this.#query(client, 'SELECT pg_advisory_unlock($1, $2)', [...keys]);
    });
  }

  /**
   * Calls back when a process on the mirror of `channel` (this one too) wrote events; the connection is made now.
   * `onLost`, when given, is told each time the connection is lost, before it is made again.
   */
  listen(channel: string, onWritten: () => void, onLost?: () => void): Promise<() => void> {
    const set = this.#listeners.get(channel) ?? new Set();
    set.add(onWritten);
    this.#listeners.set(channel, set);
    if (onLost) this.#lostListeners.add(onLost);
    const stop = (): void => {
      set.delete(onWritten);
      if (onLost) this.#lostListeners.delete(onLost);
      if (set.size > 0 || this.#listeners.get(channel) !== set) return;
      this.#listeners.delete(channel);
      const client = this.#client;
      if (client && this.#listening.delete(channel)) void this.#query(client, `UNLISTEN ${channel}`).catch(() => undefined);
    };
    return this.#guarded(async () => {
      const client = await this.#connect().catch((err: unknown) => {
        this.#reconnectSoon();
        throw err;
      });
      if (!this.#listening.has(channel)) {
        await this.#query(client, `LISTEN ${channel}`);
        if (this.#client === client) this.#listening.add(channel);
      }
      return stop;
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    REAL_TIMERS.clear(this.#timer);
    const client = this.#client ?? (await this.#connecting?.catch(() => null)) ?? null;
    this.#client = null;
    this.#held.clear();
    await client?.end().catch(() => undefined);
  }
}
