// Contract: the mirror's sync against the sandbox (a live key, changes made through the admin interface),
// the first read and a restart on each engine (SQLite, Postgres).
// The first read holds every record the API lists, field for field, and announces nothing old; each
// business operation is in the mirror after one incremental read and its events go out exactly once,
// also when made while the first read was still under way; a restart on the same file announces what
// changed while it was down and nothing it had announced.
// The mirrors read the small second business in pages of 10 (several pages a kind, as the main books take at
// 100), and time is moved on the sandbox's clock, never waited for.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIRRORED_KINDS } from '../../src/store/types.js';
import { captureLogs } from '../support/logs.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { differences, groundTruth, type MirrorUnderTest, mirrorOn, smallBusinessDay } from './books-sync-support.js';
import { businessOps, type Expected, matches, type Op } from './events-ops.js';
import { dayNumber, signIn } from './sandbox-http.js';

const logs = captureLogs('warn');
const dir = mkdtempSync(join(tmpdir(), 'mirror-sync-'));
const SMALL = 2;
const PER_PAGE = 10;
let sb: TestSandbox;
/** A key of the small business that makes the changes (each mirror reads with a key of its own). */
let owner: KeyPair;

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
  owner = await sb.makeKey('live', ALL_SCOPES, SMALL);
});
afterAll(async () => {
  await sb?.close();
});

const smallKey = (): Promise<KeyPair> => sb.makeKey('live', ALL_SCOPES, SMALL);
const opsOn = async (): Promise<Op[]> => businessOps(sb, await signIn(sb.baseUrl, owner), SMALL);
/**
 * Into a later second of the service's clock: a first read announces what changed in its own second (stamps are
 * whole seconds, and our reading of the service's clock is good to about one), so earlier changes are old news.
 */
const intoALaterSecond = (): Promise<void> => sb.advanceClock(2);
/** The outbox publishes what a round stored just after it: a moment for anything (else) to be heard. */
const aMoment = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

/** Each expected event heard exactly once, and nothing else. */
function heardExactly(m: MirrorUnderTest, from: number, expected: Expected[], what: string): void {
  const got = m.heard.slice(from);
  expect(got.map((h) => `${h.event.kind} ${h.event.record.kind}/${h.event.record.id}`).sort(), what).toEqual(
    expected.map((e) => `${e.kind} ${e.record.replace('invoicing://', '')}`).sort(),
  );
  for (const want of expected)
    expect(
      got.filter((h) => matches(h.event, h.uris, want)),
      `${what}: ${want.kind}`,
    ).toHaveLength(1);
}

/** One Postgres database for the file (each test leaves it as new before use). */
const storesOn = Object.fromEntries(ENGINES.map((engine) => [engine, engineStores(engine, 'books_sync')]));

describe.each(ENGINES)('the first read and each change after it, on %s', (engine) => {
  const stores = storesOn[engine]!;
  it('holds every record field for field, announces nothing old, and each change once after one incremental read', async () => {
    const key = await smallKey();
    await intoALaterSecond();
    const m = await mirrorOn(sb, key, logs, { location: await stores.fresh(), mirror: { perPage: PER_PAGE } });
    try {
      const ops = await opsOn();
      await m.mirror.round();
      expect(m.mirror.stats().calls).toBeGreaterThan(2 * MIRRORED_KINDS.length);
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
      await aMoment();
      expect(m.heard).toEqual([]);
      const reads = { ...m.mirror.stats().reads };
      for (const op of ops) {
        const before = m.heard.length;
        const callsBefore = m.mirror.stats().calls;
        const expected = await op.run();
        await m.mirror.round();
        // One call per kind: nothing else changed.
        expect(m.mirror.stats().calls - callsBefore, op.name).toBe(5);
        await m.mirror.round();
        await aMoment();
        heardExactly(m, before, expected, op.name);
      }
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
      expect(m.mirror.stats().reads.invoices).toBe((reads.invoices ?? 0) + 2 * ops.length);
    } finally {
      await m.close();
    }
  });
});

describe('changes during the first read', () => {
  // A state reached and left again before the read reaches its record (sent, then paid) cannot be seen by
  // any reading of lists: each case keeps the changes made during one read to states that last.
  it.each([
    ['sending invoices, accepting a quote, moving stock', [0, 2, 3], [] as number[]],
    ['a payment (the invoices sent before the mirror started)', [1], [0]],
  ])('announces, once, the changes made while the first read was still reading: %s', async (_name, during, before) => {
    const key = await smallKey();
    const ops = await opsOn();
    for (const i of before) await ops[i]!.run();
    await intoALaterSecond();
    // The background read waits for its turn before each page after its first, and on a budget whose clock
    // stands still every such turn waits: the changes are made in those waits instead, one a wait, so they land
    // while the read is under way.
    const left = during.map((i) => ops[i]!);
    const expected: Expected[] = [];
    const sleep = async (): Promise<void> => {
      const op = left.shift();
      if (op) expected.push(...(await op.run()));
    };
    const m = await mirrorOn(sb, key, logs, { mirror: { perPage: PER_PAGE, budget: { now: () => 0, sleep } } });
    try {
      await m.mirror.round();
      expect(left, 'changes still to make when the first read ended').toEqual([]);
      await m.mirror.round();
      await m.mirror.round();
      await aMoment();
      heardExactly(m, 0, expected, 'changes during the first read');
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
    } finally {
      await m.close();
    }
  });
});

describe('a background read of many pages', () => {
  it('waits its turn before each page and keeps no listener of a page once it is read (no MaxListenersExceededWarning)', async () => {
    const key = await smallKey();
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    // Pages of 2: the invoices alone take far more pages than the 10 listeners Node warns beyond.
    const m = await mirrorOn(sb, key, logs, { mirror: { perPage: 2 } });
    try {
      await m.mirror.round();
      expect(m.mirror.stats().calls).toBeGreaterThan(2 * 11);
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
      await aMoment();
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await m.close();
    }
  });
});

describe.each(ENGINES)('a restart on the same store, on %s', (engine) => {
  const stores = storesOn[engine]!;
  it('announces what changed while it was down, and nothing it had announced', async () => {
    const key = await smallKey();
    const location = await stores.shared(join(dir, 'restart.db'));
    const ops = await opsOn();
    const [send, pay, accept, stock] = ops;
    await intoALaterSecond();
    const first = await mirrorOn(sb, key, logs, { location, mirror: { perPage: PER_PAGE } });
    await first.mirror.round();
    const announced = await send!.run();
    await first.mirror.round();
    await aMoment();
    heardExactly(first, 0, announced, 'before the restart');
    await first.close();

    const whileDown = [...(await pay!.run()), ...(await accept!.run()), ...(await stock!.run())];
    const second = await mirrorOn(sb, key, logs, { location, mirror: { perPage: PER_PAGE } });
    try {
      const callsBefore = second.mirror.stats().calls;
      await second.mirror.round();
      // Fresh again with one incremental read per kind, not a full one.
      expect(second.mirror.stats().calls - callsBefore).toBe(5);
      await second.mirror.round();
      await aMoment();
      heardExactly(second, 0, whileDown, 'after the restart');
      expect(await differences(second.mirror, await groundTruth(sb, key))).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe('when the clocks differ', () => {
  beforeAll(async () => {
    await sb.advanceClock(6 * 3600);
  });

  it.each([
    ['the service 6 h ahead of us', 0],
    ['the service 6 h behind us', 12 * 3600 * 1000],
  ])('%s: nothing old is announced, a change after the first read is, once', async (_name, ourOffsetMs) => {
    const key = await smallKey();
    // Stamps are whole seconds: a change in the second the mirror starts counts as made during its read.
    await intoALaterSecond();
    const now = (): number => Date.now() + ourOffsetMs;
    const m = await mirrorOn(sb, key, logs, { client: {}, mirror: { now, perPage: PER_PAGE }, clientDeps: { now } });
    try {
      const ops = await opsOn();
      await intoALaterSecond();
      await m.mirror.round();
      await aMoment();
      expect(m.heard).toEqual([]);
      const expected = await ops[0]!.run();
      await m.mirror.round();
      await aMoment();
      heardExactly(m, 0, expected, 'after the first read');
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
    } finally {
      await m.close();
    }
  });
});

describe('time passing', () => {
  it('an invoice turning overdue with time is in the mirror after one incremental read', async () => {
    const key = await smallKey();
    // The small books' open invoices are the ones this file sent (each due 14 days after it was issued).
    await (await opsOn())[0]!.run();
    await intoALaterSecond();
    const m = await mirrorOn(sb, key, logs, { mirror: { perPage: PER_PAGE } });
    try {
      await m.mirror.round();
      const today = smallBusinessDay((await sb.clock()).now);
      const open = (await groundTruth(sb, key)).invoices!.filter(
        (i) => ['issued', 'sent', 'viewed'].includes(i.status) && i.due_date >= today && !/^0(\.0+)?$/.test(i.balance),
      );
      expect(open.length).toBeGreaterThan(0);
      const soonest = open.reduce((a, b) => (a.due_date <= b.due_date ? a : b));
      // A day more than it takes, so that no daylight-saving change on the way leaves it due today.
      const days = dayNumber(soonest.due_date) - dayNumber(today) + 2;
      await sb.advanceDays(days);
      const callsBefore = m.mirror.stats().calls;
      await m.mirror.round();
      expect(m.mirror.stats().calls - callsBefore).toBe(5);
      expect((await m.mirror.store.read.invoices({ statuses: ['overdue'] })).map((i) => i.id)).toContain(soonest.id);
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
      // No event kind covers it: nothing is announced.
      expect(m.heard).toEqual([]);
    } finally {
      await m.close();
    }
  });
});
