// The sign-in limits on Postgres, shared by two processes' pools, on a clock the test moves: failed sign-ins
// per page, address and key ID (src/hosted/limits/failed-sign-ins.ts), and the deployment's budget of
// sign-ins at the service, renewals first (src/hosted/limits/service-sign-ins.ts). Guesses sent together
// are held together: of twenty at once, only the limit's number get a place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimited } from '../../src/api/errors.js';
import { PgDb } from '../../src/db/postgres/db.js';
import { FAILURE_LIMITS, FailedSignIns, type Taken } from '../../src/hosted/limits/failed-sign-ins.js';
import { SERVICE_SIGN_INS, ServiceSignIns } from '../../src/hosted/limits/service-sign-ins.js';
import { sameSecret } from '../../src/hosted/signin/known-key.js';
import { prepareHostedSchema } from '../../src/hosted/store/schema.js';
import { postgresDatabase } from '../support/postgres.js';

const opened: PgDb[] = [];
let url: string;

/** A process's pool on the test's database. */
async function process_(): Promise<PgDb> {
  const db = new PgDb(url);
  opened.push(db);
  await prepareHostedSchema(db);
  return db;
}

/** A clock the test moves; `sleep` moves it. */
function testClock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, move: (ms: number) => void (now += ms), sleep: async (ms: number) => void (now += ms) };
}

const placed = (taken: Taken[]): number => taken.filter((t) => 'ticket' in t).length;

beforeAll(async () => {
  url = await postgresDatabase('hosted_signin_limits');
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

describe('failed sign-ins', () => {
  it('hold a key ID to its count across processes, guesses sent at once included, until the window passes', async () => {
    const clock = testClock();
    const [a, b] = [new FailedSignIns(await process_(), 'k', clock.now), new FailedSignIns(await process_(), 'k', clock.now)];
    const guesses = Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? a : b).take({ page: `page-${i}`, address: `192.0.2.${i}`, keyId: 'svck_live_guessed' }),
    );
    const taken = await Promise.all(guesses);
    expect(placed(taken)).toBe(FAILURE_LIMITS.max.key);
    const refused = taken.find((t) => 'full' in t);
    expect(refused).toEqual({ full: 'key', waitMs: FAILURE_LIMITS.windowMs });
    clock.move(FAILURE_LIMITS.windowMs - 1);
    expect(await a.take({ page: 'p', address: 'x', keyId: 'svck_live_guessed' })).toEqual({ full: 'key', waitMs: 1_000 });
    clock.move(1);
    expect('ticket' in (await b.take({ page: 'p', address: 'x', keyId: 'svck_live_guessed' }))).toBe(true);
  });

  it('count per page and per address apart; a right key gives its place back', async () => {
    const clock = testClock(1_900_000_000_000);
    const limits = new FailedSignIns(await process_(), 'k', clock.now);
    const onPage = await Promise.all([1, 2, 3, 4].map((i) => limits.take({ page: 'one page', address: `a${i}`, keyId: `k${i}` })));
    expect(placed(onPage)).toBe(FAILURE_LIMITS.max.page);
    expect(onPage.find((t) => 'full' in t)).toMatchObject({ full: 'page' });
    const fromOne = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => limits.take({ page: `p${i}`, address: 'one address', keyId: `j${i}` })),
    );
    expect(placed(fromOne)).toBe(FAILURE_LIMITS.max.address);
    // A refusal took no place in the other counts: key j6 and page p6 are free.
    expect('ticket' in (await limits.take({ page: 'p6', address: 'another', keyId: 'j6' }))).toBe(true);
    const right = (await limits.take({ page: 'p7', address: 'shared', keyId: 'right' })) as { ticket: never };
    await limits.giveBack(right.ticket);
    const again = await Promise.all([1, 2, 3, 4, 5].map((i) => limits.take({ page: `q${i}`, address: 'shared', keyId: `r${i}` })));
    expect(placed(again)).toBe(FAILURE_LIMITS.max.address);
  });
});

describe("the deployment's sign-ins at the service", () => {
  it('keep room for renewals: people take their share, renewals the rest, across processes, at once', async () => {
    const clock = testClock();
    const a = new ServiceSignIns(await process_(), clock, SERVICE_SIGN_INS);
    const b = new ServiceSignIns(await process_(), clock, SERVICE_SIGN_INS);
    const people = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take('person', 0)));
    expect(people.filter((p) => p.status === 'fulfilled').length).toBe(SERVICE_SIGN_INS.people);
    const refusal = people.find((p) => p.status === 'rejected')?.reason;
    expect(refusal).toBeInstanceOf(RateLimited);
    expect((refusal as RateLimited).retryAfter).toBe(60);
    expect((refusal as RateLimited).message).toMatch(/Try again in 60 seconds/);
    const renewals = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take('renewal', 0)));
    expect(renewals.filter((p) => p.status === 'fulfilled').length).toBe(SERVICE_SIGN_INS.perMinute - SERVICE_SIGN_INS.people);
  });

  it('let a sign-in wait for room when it may, on the clock given, and refuse it when the wait is longer', async () => {
    const clock = testClock(2_000_000_000_000);
    const db = await process_();
    await db.rows('DELETE FROM invoicing_mcp_hosted.service_sign_ins');
    const budget = new ServiceSignIns(db, clock, { perMinute: 2, people: 1 });
    await budget.take('person', 0);
    clock.move(10_000);
    await budget.take('renewal', 0);
    await expect(budget.take('person', 49_999)).rejects.toThrow(/Try again in 50 seconds/);
    const started = clock.now();
    await budget.take('person', 50_000);
    expect(clock.now() - started).toBe(50_000);
  });
});

describe('a secret compared with the one the vault keeps', () => {
  it('is the same only when equal, whatever the lengths', () => {
    expect(sameSecret('svc_live_abc', 'svc_live_abc')).toBe(true);
    expect(sameSecret('svc_live_abc', 'svc_live_abd')).toBe(false);
    expect(sameSecret('svc_live_ab', 'svc_live_abc')).toBe(false);
    expect(sameSecret('', 'svc_live_abc')).toBe(false);
  });
});
