// The deployment's sign-ins at the service, one budget for every process (on Postgres): the service allows
// 10 a minute from one address, and every sign-in of the deployment comes from its address. Renewals of
// existing grants' service sessions may use the whole budget; people signing in only what leaves room for
// them, and no one client address or business more than its share. A sign-in that finds no room waits for
// it, up to what the caller allows, or is refused with the wait. Addresses and key IDs are stored as a keyed hash.
import { createHmac } from 'node:crypto';
import { RateLimited } from '../../api/errors.js';
import { num, str } from '../../store/cells.js';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';

const TABLE = `${HOSTED_SCHEMA}.service_sign_ins`;
const WINDOW_MS = 60_000;

export type SignInKind = 'renewal' | 'person';

export interface ServiceSignInFigures {
  /** Sign-ins in any 60 s, all kinds: one under the service's 10, for clocks that differ a little. */
  perMinute: number;
  /** Of them, what people signing in may use; the rest is kept for renewals. */
  people: number;
  /** Of the people's, what those signing in from one client address may use. */
  perAddress: number;
  /**
   * Of the people's, what those signing in with one key ID may use (guesses at it included). Renewals are
   * not held to it: others' guesses at a key must not hold back its grants.
   */
  perBusiness: number;
}

/** The budget for a service that allows `allowed` sign-ins a minute from one address (10, the spec's: 9, 6, 2 and 2). */
export function signInFigures(allowed: number): ServiceSignInFigures {
  const perMinute = Math.max(1, allowed - 1);
  const people = Math.max(1, Math.round((perMinute * 2) / 3));
  const share = Math.max(1, Math.floor(people / 3));
  return { perMinute, people, perAddress: share, perBusiness: share };
}

export const SERVICE_SIGN_INS: ServiceSignInFigures = signInFigures(10);

export interface ServiceSignInDeps {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Keys the hash addresses and key IDs are stored under. */
  hashKey: string;
}

/** Whose sign-in it is: the business's key ID, and for a person the client address it came from. */
export interface SignInOf {
  kind: SignInKind;
  keyId: string;
  address?: string;
}

/** Which share has no room: the whole budget (or the people's part of it), an address's or a business's. */
type Full = 'all' | 'address' | 'business';

interface Taken {
  at: number;
  kind: string;
  address: string | null;
  business: string;
}

export class ServiceSignIns {
  constructor(
    readonly db: PgDb,
    readonly deps: ServiceSignInDeps,
    readonly figures: ServiceSignInFigures = SERVICE_SIGN_INS,
  ) {}

  #hash(what: string, value: string): string {
    return createHmac('sha256', this.deps.hashKey).update(`service sign-ins\n${what}\n${value}`).digest('base64url');
  }

  /** Takes one sign-in of the budget for `who`, waiting at most `maxWaitMs` for room; RateLimited past it. */
  async take(who: SignInOf, maxWaitMs: number): Promise<void> {
    const started = this.deps.now();
    for (;;) {
      const { waitMs, full } = await this.#tryTake(who);
      if (waitMs === 0) return;
      if (this.deps.now() + waitMs - started > maxWaitMs) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        throw new RateLimited(`${this.#fullWords(full)} Try again in ${seconds} seconds.`, seconds);
      }
      await this.deps.sleep(waitMs);
    }
  }

  #fullWords(full: Full): string {
    const minute = `this server's sign-ins at the Invoicing Service for the minute (it allows about ${this.figures.perMinute + 1} a minute from one address)`;
    if (full === 'address') return `Sign-ins from your address have had their share of ${minute}.`;
    if (full === 'business') return `Sign-ins with this key ID have had their share of ${minute}.`;
    return `This server's sign-ins at the Invoicing Service are all used for the minute (it allows about ${this.figures.perMinute + 1} a minute from one address).`;
  }

  /** A wait of 0 when taken, else how long until `who` has room and which share is full. One process at a time decides. */
  #tryTake(who: SignInOf): Promise<{ waitMs: number; full: Full }> {
    const now = this.deps.now();
    const person = who.kind === 'person';
    const business = this.#hash('business', who.keyId);
    const address = person && who.address !== undefined ? this.#hash('address', who.address) : null;
    return this.db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock(hashtext(?))', [TABLE]);
      await query(`DELETE FROM ${TABLE} WHERE at_ms <= ?`, [now - WINDOW_MS]);
      const rows: Taken[] = (await query(`SELECT at_ms, kind, address, business FROM ${TABLE} ORDER BY at_ms`)).map((r) => ({
        at: num(r[0]),
        kind: str(r[1]),
        address: r[2] === null ? null : str(r[2]),
        business: str(r[3] ?? ''),
      }));
      const freedAt = (taken: Taken[], room: number): number =>
        taken.length < room ? 0 : Math.max(1, (taken[taken.length - room]?.at ?? now) + WINDOW_MS - now);
      const people = rows.filter((r) => r.kind === 'person');
      const waits: { waitMs: number; full: Full }[] = [{ waitMs: freedAt(rows, this.figures.perMinute), full: 'all' }];
      if (person) {
        waits.push({ waitMs: freedAt(people, this.figures.people), full: 'all' });
        waits.push({
          waitMs: freedAt(
            people.filter((r) => r.business === business),
            this.figures.perBusiness,
          ),
          full: 'business',
        });
      }
      if (address !== null)
        waits.push({
          waitMs: freedAt(
            people.filter((r) => r.address === address),
            this.figures.perAddress,
          ),
          full: 'address',
        });
      const longest = waits.reduce((a, b) => (b.waitMs > a.waitMs ? b : a));
      if (longest.waitMs === 0)
        await query(`INSERT INTO ${TABLE} (at_ms, kind, address, business) VALUES (?, ?, ?, ?)`, [now, who.kind, address, business]);
      return longest;
    });
  }
}
