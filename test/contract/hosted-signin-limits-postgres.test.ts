// The sign-in limits on Postgres, shared by two processes' pools, on a clock the test moves: failed sign-ins
// per page, address and key ID (src/hosted/limits/failed-sign-ins.ts), and the deployment's budget of
// sign-ins at the service, renewals first (src/hosted/limits/service-sign-ins.ts). Guesses sent together
// are held together: of twenty at once, only the limit's number get a place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimited } from '../../src/api/errors.js';
import { FAILURE_LIMITS, FailedSignIns, type Taken } from '../../src/hosted/limits/failed-sign-ins.js';
import { SERVICE_SIGN_INS, ServiceSignIns } from '../../src/hosted/limits/service-sign-ins.js';
import { sameSecret } from '../../src/hosted/signin/known-key.js';
import { VERIFIED_KEYS, VerifiedKeys } from '../../src/hosted/signin/verified-keys.js';
import { prepareHostedSchema } from '../../src/hosted/store/schema.js';
import { PgDb } from '../../src/store/postgres/db.js';
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
    const a = new ServiceSignIns(await process_(), { ...clock, hashKey: 'k' }, SERVICE_SIGN_INS);
    const b = new ServiceSignIns(await process_(), { ...clock, hashKey: 'k' }, SERVICE_SIGN_INS);
    const person = (i: number) => ({ kind: 'person' as const, keyId: `svck_live_${i}`, address: `192.0.2.${i}` });
    const people = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take(person(i), 0)));
    expect(people.filter((p) => p.status === 'fulfilled').length).toBe(SERVICE_SIGN_INS.people);
    const refusal = people.find((p) => p.status === 'rejected')?.reason;
    expect(refusal).toBeInstanceOf(RateLimited);
    expect((refusal as RateLimited).retryAfter).toBe(60);
    expect((refusal as RateLimited).message).toMatch(/Try again in 60 seconds/);
    const renewal = (i: number) => ({ kind: 'renewal' as const, keyId: `svck_live_renewing_${i}` });
    const renewals = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take(renewal(i), 0)));
    expect(renewals.filter((p) => p.status === 'fulfilled').length).toBe(SERVICE_SIGN_INS.perMinute - SERVICE_SIGN_INS.people);
  });

  it('let a sign-in wait for room when it may, on the clock given, and refuse it when the wait is longer', async () => {
    const clock = testClock(2_000_000_000_000);
    const db = await process_();
    await db.rows('DELETE FROM invoicing_mcp_hosted.service_sign_ins');
    const budget = new ServiceSignIns(db, { ...clock, hashKey: 'k' }, { perMinute: 2, people: 1, perAddress: 1, perBusiness: 2 });
    const person = { kind: 'person' as const, keyId: 'svck_live_p', address: '192.0.2.1' };
    await budget.take(person, 0);
    clock.move(10_000);
    await budget.take({ kind: 'renewal', keyId: 'svck_live_r' }, 0);
    await expect(budget.take(person, 49_999)).rejects.toThrow(/Try again in 50 seconds/);
    const started = clock.now();
    await budget.take(person, 50_000);
    expect(clock.now() - started).toBe(50_000);
  });
});

describe("the people's sign-ins are shared between addresses and businesses", () => {
  it("one address or one key ID gets its share of the people's at most, the others still get in, its renewals too", async () => {
    const clock = testClock(2_100_000_000_000);
    const db = await process_();
    await db.rows('DELETE FROM invoicing_mcp_hosted.service_sign_ins');
    const [a, b] = [db, await process_()].map((pool) => new ServiceSignIns(pool, { ...clock, hashKey: 'k' }, SERVICE_SIGN_INS));
    const at = (i: number) => (i % 2 ? a : b) as ServiceSignIns;
    const oneAddress = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => at(i).take({ kind: 'person', keyId: `svck_live_a${i}`, address: '198.51.100.7' }, 0)),
    );
    expect(oneAddress.filter((p) => p.status === 'fulfilled').length).toBe(SERVICE_SIGN_INS.perAddress);
    const refused = (oneAddress.find((p) => p.status === 'rejected') as PromiseRejectedResult).reason as RateLimited;
    expect(refused.message).toMatch(/^Sign-ins from your address have had their share .* Try again in 60 seconds\.$/);
    const oneBusiness = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => at(i).take({ kind: 'person', keyId: 'svck_live_one', address: `203.0.113.${i}` }, 0)),
    );
    expect(oneBusiness.filter((p) => p.status === 'fulfilled').length).toBe(SERVICE_SIGN_INS.perBusiness);
    const held = oneBusiness.find((p) => p.status === 'rejected') as PromiseRejectedResult;
    expect((held.reason as RateLimited).message).toMatch(/^Sign-ins with this key ID have had their share/);
    // Sign-ins with the key ID by others (guesses) never hold back its grants' renewals.
    await a.take({ kind: 'renewal', keyId: 'svck_live_one' }, 0);
    await b.take({ kind: 'renewal', keyId: 'svck_live_other' }, 0);
    // The window moves on: the address has room again.
    clock.move(60_000);
    await a.take({ kind: 'person', keyId: 'svck_live_later', address: '198.51.100.7' }, 0);
  });
});

describe('key IDs and secrets just verified', () => {
  const checked = { businessId: 7, businessName: 'Seven Ltd', mode: 'live' as const, scopes: ['invoices.read'] };
  const pair = { keyId: 'svck_live_verified', secret: 'svc_live_right_secret_value' };

  it('one of many posted at once (two processes) checks; then all recall it until the while passes; none is stored in the clear', async () => {
    const clock = testClock(2_200_000_000_000);
    const [a, b] = [await process_(), await process_()].map((pool) => new VerifiedKeys(pool, 'k', clock.now, VERIFIED_KEYS));
    const at = (i: number) => (i % 2 ? a : b) as VerifiedKeys;
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => at(i).recallOrClaim(pair)));
    expect(first.filter((r) => 'claimed' in r).length).toBe(1);
    expect(first.filter((r) => 'checking' in r).length).toBe(7);
    await a.remember(pair, checked);
    const then = await Promise.all(Array.from({ length: 8 }, (_, i) => at(i).recallOrClaim(pair)));
    expect(then).toEqual(Array.from({ length: 8 }, () => ({ checked })));
    // Another secret for the key ID is not the one remembered.
    expect(await b.recallOrClaim({ ...pair, secret: 'svc_live_other' })).toEqual({ claimed: true });
    const rows = JSON.stringify(await (opened[0] as PgDb).rows('SELECT * FROM invoicing_mcp_hosted.verified_keys'));
    expect(rows).not.toContain(pair.keyId);
    expect(rows).not.toContain(pair.secret);
    clock.move(VERIFIED_KEYS.rememberMs);
    expect(await a.recallOrClaim(pair)).toEqual({ claimed: true });
  });

  it('a check that ended without the key lets the next check at once; one abandoned holds its pair only a while', async () => {
    const clock = testClock(2_300_000_000_000);
    const memory = new VerifiedKeys(await process_(), 'k', clock.now, VERIFIED_KEYS);
    const wrong = { keyId: 'svck_live_w', secret: 'svc_live_wrong' };
    expect(await memory.recallOrClaim(wrong)).toEqual({ claimed: true });
    await memory.release(wrong);
    expect(await memory.recallOrClaim(wrong)).toEqual({ claimed: true });
    expect(await memory.recallOrClaim(wrong)).toEqual({ checking: true });
    expect(await memory.recall(wrong)).toEqual({ checking: true });
    clock.move(VERIFIED_KEYS.checkingMs);
    expect(await memory.recall(wrong)).toBeNull();
    expect(await memory.recallOrClaim(wrong)).toEqual({ claimed: true });
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
