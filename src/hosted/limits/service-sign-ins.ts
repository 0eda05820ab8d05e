// The deployment's sign-ins at the service, one budget for every process (on Postgres): the service allows
// 10 a minute from one address, and every sign-in of the deployment comes from its address. Renewals of
// existing grants' service sessions may use the whole budget; people signing in only what leaves room for
// them. A sign-in that finds no room waits for it, up to what the caller allows, or is refused with the wait.
import { RateLimited } from '../../api/errors.js';
import { num, str } from '../../db/cells.js';
import type { PgDb } from '../../db/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';

const TABLE = `${HOSTED_SCHEMA}.service_sign_ins`;
const WINDOW_MS = 60_000;

export type SignInKind = 'renewal' | 'person';

export interface ServiceSignInFigures {
  /** Sign-ins in any 60 s, all kinds: one under the service's 10, for clocks that differ a little. */
  perMinute: number;
  /** Of them, what people signing in may use; the rest is kept for renewals. */
  people: number;
}

/** The budget for a service that allows `allowed` sign-ins a minute from one address (10, the spec's: 9 and 6). */
export function signInFigures(allowed: number): ServiceSignInFigures {
  const perMinute = Math.max(1, allowed - 1);
  return { perMinute, people: Math.max(1, Math.round((perMinute * 2) / 3)) };
}

export const SERVICE_SIGN_INS: ServiceSignInFigures = signInFigures(10);

export interface ServiceSignInDeps {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export class ServiceSignIns {
  constructor(
    readonly db: PgDb,
    readonly deps: ServiceSignInDeps,
    readonly figures: ServiceSignInFigures = SERVICE_SIGN_INS,
  ) {}

  /** Takes one sign-in of the budget for `kind`, waiting at most `maxWaitMs` for room; RateLimited past it. */
  async take(kind: SignInKind, maxWaitMs: number): Promise<void> {
    const started = this.deps.now();
    for (;;) {
      const waitMs = await this.#tryTake(kind);
      if (waitMs === 0) return;
      if (this.deps.now() + waitMs - started > maxWaitMs) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        throw new RateLimited(
          `This server's sign-ins at the Invoicing Service are all used for the minute (it allows about ${this.figures.perMinute + 1} a minute from one address). Try again in ${seconds} seconds.`,
          seconds,
        );
      }
      await this.deps.sleep(waitMs);
    }
  }

  /** 0 when taken, else how long until `kind` has room. One process at a time decides. */
  #tryTake(kind: SignInKind): Promise<number> {
    const now = this.deps.now();
    return this.db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock(hashtext(?))', [TABLE]);
      await query(`DELETE FROM ${TABLE} WHERE at_ms <= ?`, [now - WINDOW_MS]);
      const rows = (await query(`SELECT at_ms, kind FROM ${TABLE} ORDER BY at_ms`)).map((r) => ({ at: num(r[0]), kind: str(r[1]) }));
      const people = rows.filter((r) => r.kind === 'person');
      const freedAt = (taken: { at: number }[], room: number): number =>
        taken.length < room ? 0 : Math.max(1, (taken[taken.length - room]?.at ?? now) + WINDOW_MS - now);
      const waitMs = Math.max(freedAt(rows, this.figures.perMinute), kind === 'person' ? freedAt(people, this.figures.people) : 0);
      if (waitMs === 0) await query(`INSERT INTO ${TABLE} (at_ms, kind) VALUES (?, ?)`, [now, kind]);
      return waitMs;
    });
  }
}
