// Contract: the mirror within the key's budget and through faults. Lines of every invoice arrive in the
// background within the budget; with tool calls running flat out no background call meets a 429 or eats
// the reserve, and the mirror converges once they stop; under 20 % injected faults and a session ended
// mid-read, the mirror ends equal to the API with every change announced once. Each block has a sandbox of
// its own, so the three run side by side; the two fault tests share one, so they run one after the other.
// The mirrors read the small second business, in pages of 5 where a read must take several; where the test is
// about rate windows, the windows turn on a clock that skips the idle waits for them (support/test-time.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import type { MirrorOptions } from '../../src/books/mirror.js';
import { captureLogs } from '../support/logs.js';
import { ALL_SCOPES, type KeyPair, type RequestEntry, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { skippingTime, type TestTime } from '../support/test-time.js';
import { differences, groundTruth, mirrorOn } from './books-sync-support.js';
import { businessOps, type Expected } from './events-ops.js';
import { sleep as aMoment, eventually, listAll, signIn } from './sandbox-http.js';

const logs = captureLogs('error');
const SMALL = 2;
const PER_PAGE = 5;
const smallKey = (sb: TestSandbox): Promise<KeyPair> => sb.makeKey('live', ALL_SCOPES, SMALL);

/**
 * A clock for a mirror on `sb` that skips the waits while none of its calls is in flight: the client's, the
 * budget's and the rounds' timers run on it. `api` is read when the clock looks, once the mirror has started.
 */
async function mirrorTime(
  sb: TestSandbox,
  api: () => ApiClient | undefined,
): Promise<{
  time: TestTime & { stop(): void };
  client: { now: () => number; timers: TestTime['timers'] };
  mirror: Partial<MirrorOptions>;
}> {
  const time = await skippingTime(sb, () => (api()?.stats().rateLimit.inFlight ?? 0) > 0);
  return {
    time,
    client: { now: time.now, timers: time.timers },
    mirror: { now: time.now, timers: time.timers, budget: { now: time.now, sleep: time.sleep } },
  };
}

/**
 * `eventually`, with its bound on the test's clock as well: a wait that skipped past the bound (a mirror held
 * back far longer than it should be) fails as it would have on a real clock.
 */
async function within<T>(time: TestTime, ms: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const started = time.now();
  const value = await eventually(check, ms);
  expect(time.now() - started, `waited on the test's clock`).toBeLessThan(ms);
  return value;
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

const apiCalls = async (sb: TestSandbox, keyId: string): Promise<RequestEntry[]> =>
  (await sb.requests(keyId)).filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/auth/token');

describe('lines in the background (24 calls per 0.2 s window)', { concurrent: true }, () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    // The small books' pages of 5 and invoices' lines at nine tenths of 24 a window: three windows, and the cap in
    // each. The waits between calls are skipped, not the windows: the budget spaces its calls 10 ms apart.
    sb = await startTestSandbox({ rateLimit: 24, rateWindowSeconds: 0.2 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('fetches the lines of every invoice, newest first, within nine tenths of the window and no 429', async () => {
    const key = await smallKey(sb);
    let api: ApiClient | undefined;
    const { time, client, mirror } = await mirrorTime(sb, () => api);
    const m = await mirrorOn(sb, key, logs, {
      clientDeps: client,
      mirror: { ...mirror, perPage: PER_PAGE, budget: { ...mirror.budget, windowMs: 200 } },
    });
    api = m.api;
    try {
      await m.mirror.round();
      await m.mirror.linesSettled();
      const coverage = await m.mirror.store.coverage();
      expect(coverage.invoices).toBeGreaterThan(30);
      expect(coverage.withLines).toBe(coverage.invoices);
      const calls = await apiCalls(sb, key.key_id);
      expect(calls.length).toBeGreaterThan(2 * 21);
      const gets = calls.filter((c) => /^\/api\/v1\/invoices\/\d+$/.test(c.path));
      expect(gets).toHaveLength(coverage.invoices);
      const ids = gets.map((c) => Number(c.path.split('/').pop()));
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      expect(busiestWindow(calls, 200)).toBeLessThanOrEqual(21);
      // Spread by the budget's spacing, not held back by the pacer's reserve: that would hold the background until
      // its figures were a minute old, in every window.
      const at = calls.map((c) => Date.parse(c.at));
      expect(Math.max(...at) - Math.min(...at)).toBeLessThan(10_000);
      // Lines as the service sent them, for one invoice checked raw.
      const session = await signIn(sb.baseUrl, await smallKey(sb));
      const one = (await fetch(`${sb.baseUrl}/api/v1/invoices/${ids[7]}`, {
        headers: { authorization: `Bearer ${session.token}`, 'x-service-key': session.keyId },
      }).then((r) => r.json())) as any;
      const stored = await m.mirror.store.read.lines({ ids: [one.data.id] });
      expect(stored.map((l) => [l.description, l.quantity, l.unit_price, l.line_total])).toEqual(
        one.data.items.map((l: any) => [l.description, l.quantity, l.unit_price, l.line_total]),
      );
    } finally {
      time.stop();
      await m.close();
    }
  });
});

describe('tool calls flat out (60 calls per 3 s window)', { concurrent: true }, () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 60, rateWindowSeconds: 3 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('no background call meets a 429, and the mirror converges once they stop', async () => {
    const key = await smallKey(sb);
    let api: ApiClient | undefined;
    const { time, client, mirror } = await mirrorTime(sb, () => api);
    const m = await mirrorOn(sb, key, logs, {
      clientDeps: client,
      mirror: { ...mirror, pollSeconds: 1, budget: { ...mirror.budget, windowMs: 3000 } },
    });
    api = m.api;
    const owner = await smallKey(sb);
    const live = await signIn(sb.baseUrl, owner);
    const ops = await businessOps(sb, live, SMALL);
    const customers = (await listAll(live, '/api/v1/customers')).map((c) => c.id as number);
    let running = true;
    const tool = async (): Promise<void> => {
      for (let i = 1; running; i++) await m.api.customers.get(customers[i % customers.length]!, { cache: 'skip' }).catch(() => undefined);
    };
    const tools = [tool(), tool(), tool()];
    for (const op of ops) {
      await time.sleep(700);
      await op.run();
    }
    await time.sleep(2000);
    running = false;
    await Promise.all(tools);
    const stoppedAt = time.now();
    const truth = await groundTruth(sb, owner);
    await within(time, 30_000, async () => ((await differences(m.mirror, truth)).length === 0 ? true : undefined));
    await m.close();
    time.stop();
    const calls = await apiCalls(sb, key.key_id);
    const background = calls.filter((c) => !c.path.startsWith('/api/v1/customers/'));
    const toolCalls = calls.filter((c) => c.path.startsWith('/api/v1/customers/'));
    expect(toolCalls.length).toBeGreaterThan(60);
    expect(background.length).toBeGreaterThan(5);
    expect(background.filter((c) => c.status === 429)).toEqual([]);
    // While tool calls use the key, the background keeps to a quarter of it, spread over the window.
    expect(
      busiestWindow(
        background.filter((c) => Date.parse(c.at) <= stoppedAt),
        3000,
      ),
    ).toBeLessThanOrEqual(15);
    // Tool calls alone meet one 429 a window at most: the pacer's probe when the budget reads spent. The
    // background adds none: it never starts into the last tenth, so it never spends the tools' last calls.
    const times = calls.map((c) => Date.parse(c.at));
    const windows = Math.ceil((Math.max(...times) - Math.min(...times)) / 3000) + 1;
    expect(toolCalls.filter((c) => c.status === 429).length).toBeLessThanOrEqual(windows);
  }, 60_000);
});

describe('faults', { concurrent: true }, () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ rateLimit: 1_000_000 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it.sequential('under 20 % faults and a session ended mid-read: the mirror ends equal to the API, each change announced once', async () => {
    const key = await smallKey(sb);
    const owner = await smallKey(sb);
    // The session ends while the first read is under way: in the background's wait for its third turn (on a
    // budget whose clock stands still, every turn after the first waits, and the waits take no time).
    let turns = 0;
    const sleep = async (): Promise<void> => {
      if (++turns === 3) await sb.endSessions(key.key_id);
    };
    // No retries: a fault ends the round part-way, and the next must pick up without skipping a page.
    const m = await mirrorOn(sb, key, logs, {
      client: { maxRetries: 0 },
      mirror: { perPage: PER_PAGE, budget: { now: () => 0, sleep } },
    });
    const ops = await businessOps(sb, await signIn(sb.baseUrl, owner), SMALL);
    const expected: Expected[] = [];
    let failed = 0;
    /** Rounds under the faults until one completes (a round cut short by a fault is simply done again). */
    const roundThrough = async (): Promise<void> => {
      // A refused sign-in holds calls for a while (the client's cool-down): rounds go on until one completes.
      const until = Date.now() + 45_000;
      while (Date.now() < until) {
        if (
          await m.mirror.round().then(
            () => true,
            () => false,
          )
        )
          return;
        failed++;
        await aMoment(20);
      }
      throw new Error('no round completed in 45 s');
    };
    await sb.faults(0.2, ['500', 'reset']);
    try {
      await roundThrough();
      expect(turns).toBeGreaterThanOrEqual(3);
      // Each change is read before the next supersedes it (sent, then paid, would otherwise be seen as paid).
      for (const op of ops) {
        expected.push(...(await op.run()));
        await roundThrough();
      }
    } finally {
      await sb.clearFaults();
    }
    await m.mirror.round();
    await m.mirror.round();
    await aMoment(50);
    try {
      // The faults did strike: rounds were cut short and calls answered 500 or dropped.
      expect(failed).toBeGreaterThan(0);
      // (An injected fault strikes before the call is tied to a key: counted over the whole log.)
      expect((await sb.requests()).filter((c) => c.status === 500 || c.status === 0).length).toBeGreaterThan(2);
      expect(await differences(m.mirror, await groundTruth(sb, owner))).toEqual([]);
      const heard = m.heard.map((h) => `${h.event.kind} ${h.event.record.kind}/${h.event.record.id}`).sort();
      expect(heard).toEqual(expected.map((e) => `${e.kind} ${e.record.replace('invoicing://', '')}`).sort());
    } finally {
      await m.close();
    }
  }, 180_000);

  it.sequential('a failing background round is logged as a warning, and the next round goes on', async () => {
    const capture = captureLogs('warn');
    const key = await smallKey(sb);
    let api: ApiClient | undefined;
    const { time, client, mirror } = await mirrorTime(sb, () => api);
    const m = await mirrorOn(sb, key, capture, { client: { maxRetries: 0 }, clientDeps: client, mirror: { ...mirror, pollSeconds: 1 } });
    api = m.api;
    try {
      await within(time, 10_000, () => (m.mirror.stats().reads.products ? true : undefined));
      await sb.faults(1, ['500']);
      await within(time, 5000, () => (capture.text().includes('sync round failed; the next round goes on') ? true : undefined));
      await sb.clearFaults();
      const reads = m.mirror.stats().reads.products ?? 0;
      await within(time, 10_000, () => ((m.mirror.stats().reads.products ?? 0) > reads ? true : undefined));
      expect(capture.lines().find((l) => l.msg === 'sync round failed; the next round goes on')?.level).toBe(40);
    } finally {
      await sb.clearFaults();
      time.stop();
      await m.close();
    }
  }, 60_000);
});
