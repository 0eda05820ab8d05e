// Contract: the polling fallback against the sandbox over HTTP. The same business operations as the
// receiver's test must reach the bus within interval + 2 s; the poller's share of the rate limit, read
// from the sandbox's audit log, stays within 10 %; an interval of 0 makes no call at all.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { createEventBus } from '../../src/events/bus.js';
import type { BooksEvent } from '../../src/events/event.js';
import { startPoller, type Poller } from '../../src/events/poller.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type RequestEntry, type TestSandbox } from '../support/sandbox.js';
import { businessOps, matches } from './events-ops.js';
import { randomUUID } from 'node:crypto';
import { admin, eventually, get, post, signIn, sleep } from './sandbox-http.js';

const logs = captureLogs('debug');
const open: { poller: Poller; api: ApiClient }[] = [];

afterEach(async () => {
  for (const { poller, api } of open.splice(0)) {
    await poller.stop();
    await api.close();
  }
});

/** Calls of one key on the service (the sign-in counts toward the address, not the key). */
async function calls(sb: TestSandbox, keyId: string): Promise<RequestEntry[]> {
  return (await sb.requests(keyId)).filter((r) => r.path !== '/api/v1/auth/token');
}

/** The most calls in any `windowMs` span of the log. */
function busiestWindow(entries: RequestEntry[], windowMs: number): number {
  const times = entries.map((e) => Date.parse(e.at)).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] as number) - (times[i] as number) >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

describe('the poller on a roomy limit (1,200 a minute: its share is 120)', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 1200 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('publishes the events of each business operation within interval + 2 s, and nothing old at start', async () => {
    const key = await sb.makeKey('live');
    const api = makeClient(sb, key, logs);
    const heard: { event: BooksEvent; uris: readonly string[] }[] = [];
    const invalidated: string[] = [];
    const bus = createEventBus({ invalidate: (kind, id) => invalidated.push(`${kind}/${id}`) });
    bus.listen((event, uris) => heard.push({ event, uris }));
    const started = Date.now();
    const poller = startPoller({ api, bus, intervalSeconds: 1, logger: logs.logger });
    open.push({ poller, api });
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
    await eventually(() => (poller.stats().polls >= 2 ? true : undefined), 5000);
    // Drafts made by the API are not events; two years of sample books are not news.
    expect(heard.map((h) => h.event.kind)).toEqual([]);

    for (const op of ops) {
      const before = heard.length;
      const expected = await op.run();
      const at = Date.now();
      for (const want of expected) {
        const got = await eventually(() => heard.slice(before).find((h) => matches(h.event, h.uris, want)), 3000);
        expect(got.event.source).toBe('poll');
        expect(got.event.id).toMatch(/^poll_[0-9a-f]+$/);
        expect(invalidated).toContain(`${got.event.record.kind}/${got.event.record.id}`);
      }
      expect(Date.now() - at, op.name).toBeLessThanOrEqual(3000);
      // Let one more poll pass: the same change is not reported again.
      await sleep(1200);
      expect(heard.length - before, op.name).toBe(expected.length);
    }

    const elapsedS = (Date.now() - started) / 1000;
    const stats = poller.stats();
    const served = await calls(sb, key.key_id);
    expect(served.every((c) => c.method === 'GET' && /^\/api\/v1\/(invoices|payments|quotes|products)\?/.test(c.path))).toBe(true);
    expect(served.every((c) => c.path.includes('updated_since=') || c.path.includes('low_stock=true'))).toBe(true);
    const busiest = busiestWindow(served, 60_000);
    expect(busiest).toBeLessThanOrEqual(120);
    logs.logger.info({ elapsedS, stats, served: served.length, busiest, share: busiest / 1200 }, 'poller share on a roomy limit');
    console.error(`[events-poller] roomy: ${served.length} calls in ${elapsedS.toFixed(1)} s, busiest 60 s = ${busiest} of 1200 (${((100 * busiest) / 1200).toFixed(1)} %), stats ${JSON.stringify(stats)}`);
  });

  // The service's stamps are whole seconds: a draft read and then sent within one second carries the same
  // stamp in both states, and the sending must still be news.
  it('hears of an invoice sent within the second the poller last read it as a draft', async () => {
    const live = await signIn(sb.baseUrl, sb.keys.live);
    const customerId = (await get(live, '/api/v1/customers?status=active&per_page=1')).body.data[0].id as number;
    for (let attempt = 1; ; attempt++) {
      // Early in a second, so that creating, the poller's first read and sending fit in it.
      await sleep(1000 - (Date.now() % 1000) + 20);
      const draft = (await post(live, '/api/v1/invoices', { customer_id: customerId, items: [{ description: 'Same second', quantity: 1, unit_price: '5.00' }] }, { 'idempotency-key': randomUUID() })).body.data;
      const key = await sb.makeKey('live');
      const api = makeClient(sb, key, logs);
      const heard: BooksEvent[] = [];
      const bus = createEventBus({ invalidate: () => undefined });
      bus.listen((event) => heard.push(event));
      const poller = startPoller({ api, bus, intervalSeconds: 1, logger: logs.logger });
      open.push({ poller, api });
      // The low-stock baseline, then invoices: a third call means the invoices (with the draft) are read.
      await eventually(() => (poller.stats().calls >= 3 ? true : undefined), 2000);
      const sent = (await admin(sb, 'POST', `/invoices/${draft.id}/send`)).body;
      expect(sent.event_ids).toHaveLength(1);
      const after = (await get(live, `/api/v1/invoices/${draft.id}`)).body.data;
      if (after.updated_at !== draft.updated_at) {
        // The second turned over on the way: the case is not made, so try again (rarely needed).
        expect(attempt, 'three tries to fit create, read and send in one second').toBeLessThan(3);
        continue;
      }
      const got = await eventually(() => heard.find((e) => e.kind === 'invoice.sent' && e.record.id === draft.id), 3000);
      expect(got.source).toBe('poll');
      return;
    }
  });

  it('a failing poll is logged as a warning and the next tick goes on', async () => {
    const capture = captureLogs('debug');
    const key = await sb.makeKey('live');
    const api = makeClient(sb, key, capture, { maxRetries: 0 });
    const heard: BooksEvent[] = [];
    const bus = createEventBus({ invalidate: () => undefined });
    bus.listen((event) => heard.push(event));
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
    const poller = startPoller({ api, bus, intervalSeconds: 1, logger: capture.logger });
    open.push({ poller, api });
    await eventually(() => (poller.stats().polls >= 1 && poller.stats().calls >= 5 ? true : undefined), 5000);
    await sb.faults(1, ['500']);
    try {
      await eventually(() => (capture.text().includes('poll failed') ? true : undefined), 4000);
    } finally {
      await sb.clearFaults();
    }
    const warning = capture.lines().find((l) => l['msg'] === 'poll failed; the next tick goes on');
    expect(warning?.['level']).toBe(40);
    const [sent] = await (ops[0] as (typeof ops)[number]).run();
    const got = await eventually(() => heard.find((e) => e.kind === 'invoice.sent'), 3000);
    expect(`invoicing://invoices/${got.record.id}`).toBe(sent?.record);
  });

  it('a poll slower than its interval is followed at once by the next, not an interval later', async () => {
    const key = await sb.makeKey('live');
    const api = makeClient(sb, key, logs);
    await api.ping();
    // 300 ms a call: a poll of four lists takes about 1.2 s against an interval of 1 s.
    await sb.faults(1, ['latency'], 300);
    try {
      const poller = startPoller({ api, bus: createEventBus({ invalidate: () => undefined }), intervalSeconds: 1, logger: logs.logger });
      open.push({ poller, api });
      await sleep(8_000);
      await poller.stop();
    } finally {
      await sb.clearFaults();
    }
    const starts = (await calls(sb, key.key_id)).filter((c) => c.path.startsWith('/api/v1/invoices?')).map((c) => Date.parse(c.at));
    const gaps = starts.slice(1).map((t, i) => t - (starts[i] as number)).sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] as number;
    // Back to back, each poll ~1.2 s after the last; waiting for the next tick would make it 2 s.
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    expect(median).toBeLessThan(1_700);
    expect(median).toBeGreaterThanOrEqual(1_000);
  });

  it('an interval of 0 makes no call at all', async () => {
    const key = await sb.makeKey('live');
    const api = makeClient(sb, key, logs);
    const poller = startPoller({ api, bus: createEventBus({ invalidate: () => undefined }), intervalSeconds: 0, logger: logs.logger });
    open.push({ poller, api });
    await sleep(1500);
    expect(poller.stats()).toEqual({ polls: 0, calls: 0, skipped: 0, events: 0 });
    expect(await sb.requests(key.key_id)).toEqual([]);
    expect(await sb.signIns(key.key_id)).toEqual([]);
  });
});

describe('the poller on a tight limit (40 per 3 s: its share is 4)', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 40, rateWindowSeconds: 3 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('never spends more than 10 % of the limit in a window, defers the rest, and still gets round every list', async () => {
    const key = await sb.makeKey('live');
    const api = makeClient(sb, key, logs);
    const bus = createEventBus({ invalidate: () => undefined });
    const poller = startPoller({ api, bus, intervalSeconds: 1, windowSeconds: 3, logger: logs.logger });
    open.push({ poller, api });
    await sleep(7_000);
    await poller.stop();
    const stats = poller.stats();
    const served = await calls(sb, key.key_id);
    // The limit comes from X-RateLimit-Limit after the first answer; before it, 120 (so 12) is assumed.
    const busiest = busiestWindow(served.slice(1), 2_900);
    expect(busiest).toBeLessThanOrEqual(4);
    expect(stats.skipped).toBeGreaterThan(0);
    expect(served.every((c) => c.status === 200)).toBe(true);
    for (const list of ['invoices', 'payments', 'quotes', 'products']) {
      expect(served.some((c) => c.path.startsWith(`/api/v1/${list}?`) && c.path.includes('updated_since=')), list).toBe(true);
    }
    expect(logs.text()).toContain('SVC_POLL_SECONDS=1 needs more calls than 10 % of the rate limit (40 per 3 s) allows: changes will be found about every 3 s');
    console.error(`[events-poller] tight: ${served.length} calls in 7 s, busiest 3 s = ${busiest} of 40 (${((100 * busiest) / 40).toFixed(1)} %), stats ${JSON.stringify(stats)}`);
  });
});

describe('the poller when the clocks differ', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 1200 });
    await sb.advanceClock(6 * 3600);
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('service 6 h ahead of us, or 6 h behind: nothing old at start, the next change still seen', async () => {
    const heard: { skew: string; event: BooksEvent }[] = [];
    for (const [skew, offsetMs] of [
      ['service ahead', 0],
      ['service behind', 12 * 3600 * 1000],
    ] as const) {
      const key = await sb.makeKey('live');
      const api = makeClient(sb, key, logs);
      const bus = createEventBus({ invalidate: () => undefined });
      bus.listen((event) => heard.push({ skew, event }));
      const poller = startPoller({ api, bus, intervalSeconds: 1, logger: logs.logger, now: () => Date.now() + offsetMs });
      open.push({ poller, api });
    }
    const live = await signIn(sb.baseUrl, sb.keys.live);
    const ops = await businessOps(sb, live);
    await sleep(2200);
    expect(heard).toEqual([]);
    const [send] = await (ops[0] as (typeof ops)[number]).run();
    for (const skew of ['service ahead', 'service behind']) {
      const got = await eventually(() => heard.find((h) => h.skew === skew && h.event.kind === 'invoice.sent'), 3000);
      expect(`invoicing://invoices/${got.event.record.id}`).toBe(send?.record);
    }
  });
});
