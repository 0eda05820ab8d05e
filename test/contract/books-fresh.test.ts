// Contract: the freshness contract and two holders of one store (a file, or a Postgres database). ensureFresh reads a cold kind in full with
// progress, then one updated_since call per kind, none for a kind just read; it reports the as-of time in
// the service's clock. Two mirrors on one store: one syncs (the lease), both read, and both publish the
// events the syncing one found; the other's ensureFresh is answered by the holder.
// The mirrors read the small second business in pages of 5 (several pages a kind); time is moved, on our
// clock and the sandbox's, rather than waited for.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BooksEvent } from '../../src/events/event.js';
import { eventFromWebhook } from '../../src/events/from-webhook.js';
import type { FreshProgress } from '../../src/store/types.js';
import { captureLogs } from '../support/logs.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { differences, groundTruth, type MirrorUnderTest, mirrorOn, smallBusinessDay } from './books-sync-support.js';
import { businessOps } from './events-ops.js';
import { eventually, get, signIn, sleep } from './sandbox-http.js';

const logs = captureLogs('error');
const SMALL = 2;
const PER_PAGE = 5;
/** How often the mirrors look at the store for what the other did or asked. */
const LOOK_EVERY_MS = 20;
let sb: TestSandbox;
/** A key of the small business that makes the changes (each mirror reads with a key of its own). */
let owner: KeyPair;

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000, today: '2026-11-01' });
  owner = await sb.makeKey('live', ALL_SCOPES, SMALL);
});
afterAll(async () => {
  await sb?.close();
});

const smallKey = (mode: 'live' | 'test' = 'live'): Promise<KeyPair> => sb.makeKey(mode, ALL_SCOPES, SMALL);
/**
 * A background budget whose clock stands still, so every turn after the first waits: the first `atOnce` waits
 * end at once, the next one only when the read stops waiting for it (as on a tight rate limit); `waiting`
 * resolves when it begins.
 */
function stalledBudget(atOnce: number) {
  let began = (): void => undefined;
  const waiting = new Promise<void>((resolve) => (began = resolve));
  let left = atOnce;
  const sleep = (_ms: number, signal?: AbortSignal): Promise<void> => {
    if (left-- > 0) return Promise.resolve();
    began();
    return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
  return { budget: { now: () => 0, sleep }, waiting };
}

describe('ensureFresh', () => {
  it('reads a cold kind in full with progress, then one call per kind, none when just read', async () => {
    const key = await smallKey();
    // The mirror's clock moves only when the test moves it, and the service's with it.
    let now = Date.now();
    const m = await mirrorOn(sb, key, logs, { mirror: { freshMs: 1500, perPage: PER_PAGE, now: () => now } });
    const later = async (ms: number): Promise<void> => {
      await sb.advanceClock(ms / 1000);
      now += ms;
    };
    try {
      const progress: FreshProgress[] = [];
      const truth = await groundTruth(sb, key);
      const total = truth.invoices!.length;
      const cold = await m.mirror.books.ensureFresh(['invoices'], { onProgress: (u) => progress.push(u) });
      expect(progress.length).toBe(Math.ceil(total / PER_PAGE));
      expect(progress.length).toBeGreaterThan(1);
      expect(progress.at(-1)).toMatchObject({ progress: total, total });
      expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
      // The service's clock and the business's day, as the sandbox's own clock says.
      const clock = (await sb.admin('GET', '/clock')).body;
      expect(Math.abs(Date.parse(cold.asOf) - Date.parse(clock.now))).toBeLessThan(5_000);
      expect(cold.today).toBe(smallBusinessDay(clock.now));
      expect(await m.mirror.store.coverage()).toEqual({ withLines: 0, invoices: total });

      const calls = m.mirror.stats().calls;
      await m.mirror.books.ensureFresh(['invoices']);
      expect(m.mirror.stats().calls).toBe(calls);
      await later(1600);
      await m.mirror.books.ensureFresh(['invoices', 'payments']);
      // One updated_since call for invoices; payments were cold, so read in full (a page or more).
      const paymentPages = Math.ceil(truth.payments!.length / PER_PAGE);
      expect(m.mirror.stats().calls - calls).toBe(1 + paymentPages);
      await later(1600);
      const before = m.mirror.stats().calls;
      const fresh = await m.mirror.books.ensureFresh(['invoices', 'payments']);
      expect(m.mirror.stats().calls - before).toBe(2);
      expect(Date.parse(fresh.asOf)).toBeGreaterThan(Date.parse(cold.asOf));

      // Kinds read for names only: in full the first time, not again once read, and not in the as-of.
      const productPages = Math.ceil(truth.products!.length / PER_PAGE);
      const first = m.mirror.stats().calls;
      await m.mirror.books.ensureFresh(['invoices'], { labels: ['products'] });
      expect(m.mirror.stats().calls - first).toBe(productPages);
      await later(1600);
      const again = m.mirror.stats().calls;
      const labelled = await m.mirror.books.ensureFresh(['invoices'], { labels: ['products'] });
      expect(m.mirror.stats().calls - again).toBe(1);
      expect(Date.parse(labelled.asOf)).toBeGreaterThan(Date.parse(fresh.asOf));
    } finally {
      await m.close();
    }
  });
});

describe.each(ENGINES)('two mirrors on one store (%s)', (engine) => {
  const stores = engineStores(engine, 'books_fresh');
  it('one syncs, both read the same books, both publish what the syncing one found', async () => {
    const location = await stores.shared(join(mkdtempSync(join(tmpdir(), 'mirror-two-')), 'books.db'));
    // Two keys of one business stand in for one key in two processes: the log tells their calls apart.
    const [keyA, keyB] = [await smallKey(), await smallKey()];
    const mirror = { freshMs: 0, perPage: PER_PAGE, lookEveryMs: LOOK_EVERY_MS };
    const a = await mirrorOn(sb, keyA, logs, { location, identity: 'shared', mirror });
    const b = await mirrorOn(sb, keyB, logs, { location, identity: 'shared', mirror });
    try {
      const ops = await businessOps(sb, await signIn(sb.baseUrl, owner), SMALL);
      // Into a later second of the service's clock: what changed before (another engine's test) is old news to a
      // first read (stamps are whole seconds).
      await sb.advanceClock(2);
      await Promise.all([a.mirror.round(), b.mirror.round()]);
      const [send] = ops;
      const expected = await send!.run();
      await Promise.all([a.mirror.round(), b.mirror.round()]);
      const callsA = (await sb.requests(keyA.key_id)).filter((r) => r.path.startsWith('/api/v1/')).length;
      const callsB = (await sb.requests(keyB.key_id)).filter((r) => r.path.startsWith('/api/v1/')).length;
      expect([callsA, callsB].filter((n) => n > 0)).toHaveLength(1);
      const truth = await groundTruth(sb, owner);
      expect(await differences(a.mirror, truth)).toEqual([]);
      expect(await differences(b.mirror, truth)).toEqual([]);
      for (const m of [a, b]) {
        await eventually(() => (m.heard.length >= expected.length ? true : undefined), 3000);
        expect(m.heard.map((h) => h.event.kind).sort()).toEqual(expected.map((e) => e.kind).sort());
      }
      // The one without the lease asks for fresh data: the holder reads it, and it sees the change.
      const [holder, reader] = callsA > 0 ? [a, b] : [b, a];
      const [paid] = await ops[1]!.run();
      const before = holder.mirror.stats().calls;
      const fresh = await reader.mirror.books.ensureFresh(['payments']);
      expect(holder.mirror.stats().calls - before).toBe(1);
      expect(reader.mirror.stats().calls).toBe(0);
      expect(await reader.mirror.books.read.raw('payments', Number(paid!.record.split('/').pop()))).not.toBeNull();
      const clock = (await sb.admin('GET', '/clock')).body;
      expect(Math.abs(Date.parse(fresh.asOf) - Date.parse(clock.now))).toBeLessThan(5_000);

      // A webhook that reaches the process without the lease: both announce it, each once.
      const invoice = truth.invoices!.find((i) => i.status === 'sent')!;
      const hook: BooksEvent = {
        id: `evt_two_${engine}`,
        kind: 'invoice.paid',
        createdAt: clock.now,
        source: 'webhook',
        record: { kind: 'invoices', id: invoice.id },
        related: [],
        data: { ...invoice, status: 'paid', balance: '0.00', updated_at: '2099-01-01T00:00:00+13:00' },
      };
      reader.bus.publish(hook);
      const heardHook = (m: MirrorUnderTest): number => m.heard.filter((h) => h.event.id === hook.id).length;
      await eventually(() => (heardHook(holder) > 0 ? true : undefined), 3000);
      // Five looks at the store: time for a second announcement, were there one.
      await sleep(5 * LOOK_EVERY_MS);
      expect([heardHook(holder), heardHook(reader)]).toEqual([1, 1]);
      expect((await holder.mirror.books.read.raw('invoices', invoice.id))?.status).toBe('paid');
      // Webhooks are ordered by the instant their stamps name, not by their text (whose offset changes when
      // daylight saving ends): a later change whose text sorts first is kept, an earlier one whose text sorts
      // last is not.
      const at = (n: number, stamp: string, reference: string): BooksEvent => ({
        ...hook,
        id: `evt_offset_${n}_${engine}`,
        data: { ...hook.data, updated_at: stamp, reference },
      });
      reader.bus.publish(at(1, '2098-12-31T23:30:00+12:00', 'half an hour later'));
      await eventually(
        async () => ((await holder.mirror.books.read.raw('invoices', invoice.id))?.reference === 'half an hour later' ? true : undefined),
        3000,
      );
      reader.bus.publish(at(2, '2099-01-01T00:10:00+13:00', 'ten minutes later'));
      await sleep(5 * LOOK_EVERY_MS);
      expect((await holder.mirror.books.read.raw('invoices', invoice.id))?.reference).toBe('half an hour later');
      // The kept one reaches the other process; the refused one is not stored, so it reaches no other.
      const heardOf = (m: MirrorUnderTest, n: number): number => m.heard.filter((h) => h.event.id === `evt_offset_${n}_${engine}`).length;
      expect([heardOf(holder, 1), heardOf(holder, 2)]).toEqual([1, 0]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("the server's mirror on the embedded sandbox", () => {
  it('makes no call until a tool first asks, then reads in memory and answers', async () => {
    const { planBooksMirror } = await import('../../src/books/books-mirror.js');
    const { createEventBus } = await import('../../src/events/bus.js');
    const { makeClient } = await import('../support/client.js');
    const key = await smallKey('test');
    const api = makeClient(sb, key, logs);
    const connection = { api, config: null, sandbox: { baseUrl: sb.baseUrl, close: async () => undefined }, close: () => api.close() };
    const plan = planBooksMirror(null, connection, createEventBus({ invalidate: () => undefined }), async () => logs.logger, {
      eventsLive: false,
    });
    expect(plan.location).toEqual({ kind: 'memory' });
    expect(plan.line).toContain('in memory');
    await plan.start();
    await sleep(300);
    expect(await sb.requests(key.key_id)).toEqual([]);
    const fresh = await plan.books!.ensureFresh(['customers']);
    expect(fresh.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const customers = (await groundTruth(sb, key)).customers!;
    expect((await plan.books!.read.customers()).map((c) => c.id)).toEqual(customers.map((c) => c.id));
    await plan.close();
    await api.close();
  });
});

describe('a tool call joining a background read', () => {
  it('moves the rest of a slow cold read to the main lane and hears its progress', async () => {
    const key = await smallKey();
    // Customers take two pages, invoices begin, and the turn for their third page does not come.
    const { budget, waiting } = stalledBudget(3);
    const m = await mirrorOn(sb, key, logs, { mirror: { perPage: PER_PAGE, budget } });
    const background = m.mirror.round().catch(() => undefined);
    await waiting;
    expect(m.mirror.stats().calls).toBe(4);
    expect(m.api.stats().rateLimit.foregroundStarted).toBe(0);
    const progress: FreshProgress[] = [];
    await m.mirror.books.ensureFresh(['invoices'], { onProgress: (u) => progress.push(u) });
    const invoices = (await groundTruth(sb, key)).invoices!.length;
    expect(progress.at(-1)?.progress).toBe(invoices);
    // The pages left were read in the main lane.
    expect(m.api.stats().rateLimit.foregroundStarted).toBeGreaterThan(0);
    await m.close();
    await background;
  });

  it('ends a background wait for its turn at once: the read goes on in the main lane', async () => {
    const key = await smallKey();
    // The round's first call (customers, page 1 of 2) goes at once; the turn for the second does not come.
    const { budget, waiting } = stalledBudget(0);
    const m = await mirrorOn(sb, key, logs, { mirror: { perPage: PER_PAGE, budget } });
    const background = m.mirror.round().catch(() => undefined);
    await waiting;
    expect(await m.mirror.books.read.customers()).toHaveLength(PER_PAGE);
    const started = performance.now();
    await m.mirror.books.ensureFresh(['customers']);
    const waited = performance.now() - started;
    // What the service takes for the page left, measured on the raw API just after.
    const session = await signIn(sb.baseUrl, await smallKey());
    const rawStarted = performance.now();
    expect((await get(session, `/api/v1/customers?page=2&per_page=${PER_PAGE}`)).status).toBe(200);
    const raw = performance.now() - rawStarted;
    expect(waited).toBeLessThan(Math.max(1_000, 10 * raw));
    expect(m.api.stats().rateLimit.foregroundStarted).toBeGreaterThan(0);
    await m.close();
    await background;
  });
});

describe('a webhook', () => {
  it('makes its record current, not its kind: the next fresh read brings in what else its change touched', async () => {
    let ahead = 0;
    const key = await smallKey();
    const m = await mirrorOn(sb, key, logs, { mirror: { freshMs: 60_000, now: () => Date.now() + ahead } });
    try {
      const live = await signIn(sb.baseUrl, owner);
      const [send, pay] = await businessOps(sb, live, SMALL);
      await send!.run();
      await m.mirror.books.ensureFresh(['invoices', 'payments']);
      // The payment pays one invoice in full and another in part; only the one paid off has a webhook (invoice.paid).
      const changes = await pay!.run();
      const paidOff = changes.find((c) => c.kind === 'invoice.paid')!;
      const partPaid = changes.find((c) => c.kind === 'payment.recorded')!.related.find((uri) => uri !== paidOff.record)!;
      const idOf = (uri: string): number => Number(uri.split('/').pop());
      const invoice = (await get(live, `/api/v1/invoices/${idOf(paidOff.record)}`)).body.data;
      const part = (await get(live, `/api/v1/invoices/${idOf(partPaid)}`)).body.data;
      expect(part.status).toBe('part_paid');
      // A minute on, the kinds are no longer fresh, and the service takes 400 ms an answer.
      ahead = 61_000;
      expect((await sb.admin('PUT', '/faults', { rate: 1, kinds: ['latency'], latency_ms: 400 })).status).toBe(200);
      const parsed = eventFromWebhook({ id: paidOff.eventId, event: 'invoice.paid', created_at: invoice.updated_at, data: { invoice } });
      if (!parsed.ok) throw new Error('the webhook body did not parse');
      m.bus.publish(parsed.event);
      await eventually(async () => ((await m.mirror.books.read.raw('invoices', invoice.id))?.status === 'paid' ? true : undefined));

      await m.mirror.books.ensureFresh(['invoices']);
      expect(await m.mirror.books.read.raw('invoices', part.id)).toMatchObject({ status: 'part_paid', balance: part.balance });
    } finally {
      await sb.clearFaults();
      await m.close();
    }
  });
});
