// Contract: the mirror's sync against the sandbox (a live key, changes made through the admin interface),
// the first read and a restart on each engine (SQLite, Postgres).
// The first read holds every record the API lists, field for field, and announces nothing old; each
// business operation is in the mirror after one incremental read and its events go out exactly once,
// also when made while the first read was still under way; a restart on the same file announces what
// changed while it was down and nothing it had announced.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/logs.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { differences, groundTruth, type MirrorUnderTest, mirrorOn } from './books-sync-support.js';
import { businessOps, type Expected, matches } from './events-ops.js';
import { signIn, sleep } from './sandbox-http.js';

const logs = captureLogs('warn');
const dir = mkdtempSync(join(tmpdir(), 'mirror-sync-'));
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 6000 });
});
afterAll(async () => {
  await sb?.close();
});

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

/** When this file's tests last changed the books. */
let lastChanges = 0;
/** Into the second after the last changes: a first read announces what changed in its own second (stamps are whole seconds). */
const afterLastChanges = (): Promise<void> => sleep(Math.max(0, 1100 - (Date.now() - lastChanges)));

describe.each(ENGINES)('the first read and each change after it, on %s', (engine) => {
  const stores = engineStores(engine, 'books_sync_first');
  it('holds every record field for field, announces nothing old, and each change once after one incremental read', async () => {
    const key = await sb.makeKey('live');
    await afterLastChanges();
    const m = await mirrorOn(sb, key, logs, { location: await stores.fresh() });
    try {
      const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
      await m.mirror.round();
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
      await new Promise((r) => setTimeout(r, 50));
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
        await new Promise((r) => setTimeout(r, 50));
        heardExactly(m, before, expected, op.name);
      }
      lastChanges = Date.now();
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
    const key = await sb.makeKey('live');
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
    for (const i of before) await ops[i]!.run();
    await new Promise((r) => setTimeout(r, 1100)); // into the next second: earlier changes are old news
    const m = await mirrorOn(sb, key, logs);
    try {
      // 120 ms a call: the first read takes about two seconds, and the changes land in the middle of it.
      await sb.faults(1, ['latency'], 120);
      const first = m.mirror.round();
      const expected: Expected[] = [];
      for (const i of during) {
        await new Promise((r) => setTimeout(r, 250));
        expected.push(...(await ops[i]!.run()));
      }
      await first;
      await sb.clearFaults();
      await m.mirror.round();
      await m.mirror.round();
      await new Promise((r) => setTimeout(r, 50));
      heardExactly(m, 0, expected, 'changes during the first read');
      lastChanges = Date.now();
      expect(await differences(m.mirror, await groundTruth(sb, key))).toEqual([]);
    } finally {
      await sb.clearFaults();
      await m.close();
    }
  });
});

describe.each(ENGINES)('a restart on the same store, on %s', (engine) => {
  const stores = engineStores(engine, 'books_sync_restart');
  it('announces what changed while it was down, and nothing it had announced', async () => {
    const key = await sb.makeKey('live');
    const location = await stores.shared(join(dir, 'restart.db'));
    await afterLastChanges();
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
    const [send, pay, accept, stock] = ops;
    const first = await mirrorOn(sb, key, logs, { location });
    await first.mirror.round();
    const announced = await send!.run();
    await first.mirror.round();
    await new Promise((r) => setTimeout(r, 50));
    heardExactly(first, 0, announced, 'before the restart');
    await first.close();

    const whileDown = [...(await pay!.run()), ...(await accept!.run()), ...(await stock!.run())];
    lastChanges = Date.now();
    const second = await mirrorOn(sb, key, logs, { location });
    try {
      const callsBefore = second.mirror.stats().calls;
      await second.mirror.round();
      // Fresh again with one incremental read per kind, not a full one.
      expect(second.mirror.stats().calls - callsBefore).toBe(5);
      await second.mirror.round();
      await new Promise((r) => setTimeout(r, 50));
      heardExactly(second, 0, whileDown, 'after the restart');
      expect(await differences(second.mirror, await groundTruth(sb, key))).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe('time passing', () => {
  let timed: TestSandbox;
  beforeAll(async () => {
    timed = await startTestSandbox({ rateLimit: 6000, today: '2026-11-01' });
  });
  afterAll(async () => {
    await timed?.close();
  });

  it('an invoice turning overdue with time is in the mirror after one incremental read', async () => {
    const key = await timed.makeKey('live');
    const m = await mirrorOn(timed, key, logs);
    try {
      await m.mirror.round();
      const open = (await groundTruth(timed, key)).invoices!.filter(
        (i) => ['issued', 'sent', 'viewed'].includes(i.status) && i.due_date >= '2026-11-01' && !/^0(\.0+)?$/.test(i.balance),
      );
      expect(open.length).toBeGreaterThan(0);
      const soonest = open.reduce((a, b) => (a.due_date <= b.due_date ? a : b));
      const days = (Date.parse(`${soonest.due_date}T00:00:00Z`) - Date.parse('2026-11-01T00:00:00Z')) / 86_400_000 + 1;
      await timed.admin('POST', '/clock', { advance_days: days });
      const callsBefore = m.mirror.stats().calls;
      await m.mirror.round();
      expect(m.mirror.stats().calls - callsBefore).toBe(5);
      expect((await m.mirror.store.read.invoices({ statuses: ['overdue'] })).map((i) => i.id)).toContain(soonest.id);
      expect(await differences(m.mirror, await groundTruth(timed, key))).toEqual([]);
      // No event kind covers it: nothing is announced.
      expect(m.heard).toEqual([]);
    } finally {
      await m.close();
    }
  });
});

describe('when the clocks differ', () => {
  let skewed: TestSandbox;
  beforeAll(async () => {
    skewed = await startTestSandbox({ rateLimit: 6000 });
    await skewed.advanceClock(6 * 3600);
  });
  afterAll(async () => {
    await skewed?.close();
  });

  it.each([
    ['the service 6 h ahead of us', 0],
    ['the service 6 h behind us', 12 * 3600 * 1000],
  ])('%s: nothing old is announced, a change after the first read is, once', async (_name, ourOffsetMs) => {
    const key = await skewed.makeKey('live');
    // Stamps are whole seconds: a change in the second the mirror starts counts as made during its read.
    await new Promise((r) => setTimeout(r, 1100));
    const now = (): number => Date.now() + ourOffsetMs;
    const m = await mirrorOn(skewed, key, logs, { client: {}, mirror: { now }, clientDeps: { now } });
    try {
      const ops = await businessOps(skewed as never, await signIn(skewed.baseUrl, skewed.keys.live));
      await new Promise((r) => setTimeout(r, 1100));
      await m.mirror.round();
      await new Promise((r) => setTimeout(r, 50));
      expect(m.heard).toEqual([]);
      const expected = await ops[0]!.run();
      await m.mirror.round();
      await new Promise((r) => setTimeout(r, 50));
      heardExactly(m, 0, expected, 'after the first read');
      expect(await differences(m.mirror, await groundTruth(skewed, key))).toEqual([]);
    } finally {
      await m.close();
    }
  });
});
