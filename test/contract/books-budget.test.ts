// Contract: the mirror within the key's budget and through faults. Lines of every invoice arrive in the
// background within the budget; with tool calls running flat out no background call meets a 429 or eats
// the reserve, and the mirror converges once they stop; under 20 % injected faults and a session ended
// mid-read, the mirror ends equal to the API with every change announced once. Each block has a sandbox of
// its own, so the three run side by side; the two fault tests share one, so they run one after the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/logs.js';
import { type RequestEntry, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { differences, groundTruth, mirrorOn } from './books-sync-support.js';
import { businessOps, type Expected } from './events-ops.js';
import { eventually, signIn, sleep } from './sandbox-http.js';

const logs = captureLogs('error');

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

describe('lines in the background (240 calls per 2 s window)', { concurrent: true }, () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    // Over 400 invoices' lines at nine tenths of 240 a window: three windows, and the cap in each.
    sb = await startTestSandbox({ rateLimit: 240, rateWindowSeconds: 2 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('fetches the lines of every invoice, newest first, within nine tenths of the window and no 429', async () => {
    const key = await sb.makeKey('live');
    const m = await mirrorOn(sb, key, logs, { mirror: { budget: { windowMs: 2000 } } });
    try {
      await m.mirror.round();
      await m.mirror.linesSettled();
      const coverage = await m.mirror.store.coverage();
      expect(coverage.invoices).toBeGreaterThan(400);
      expect(coverage.withLines).toBe(coverage.invoices);
      const calls = await apiCalls(sb, key.key_id);
      const gets = calls.filter((c) => /^\/api\/v1\/invoices\/\d+$/.test(c.path));
      expect(gets).toHaveLength(coverage.invoices);
      const ids = gets.map((c) => Number(c.path.split('/').pop()));
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      expect(busiestWindow(calls, 2000)).toBeLessThanOrEqual(216);
      // Lines as the service sent them, for one invoice checked raw.
      const session = await signIn(sb.baseUrl, sb.keys.live);
      const one = (await fetch(`${sb.baseUrl}/api/v1/invoices/${ids[7]}`, {
        headers: { authorization: `Bearer ${session.token}`, 'x-service-key': session.keyId },
      }).then((r) => r.json())) as any;
      const stored = await m.mirror.store.read.lines({ ids: [one.data.id] });
      expect(stored.map((l) => [l.description, l.quantity, l.unit_price, l.line_total])).toEqual(
        one.data.items.map((l: any) => [l.description, l.quantity, l.unit_price, l.line_total]),
      );
    } finally {
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
    const key = await sb.makeKey('live');
    const m = await mirrorOn(sb, key, logs, { mirror: { pollSeconds: 1, budget: { windowMs: 3000 } } });
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
    let running = true;
    const tool = async (): Promise<void> => {
      for (let i = 1; running; i++) await m.api.customers.get((i % 20) + 1, { cache: 'skip' }).catch(() => undefined);
    };
    const tools = [tool(), tool(), tool()];
    for (const op of ops) {
      await sleep(700);
      await op.run();
    }
    await sleep(2000);
    running = false;
    await Promise.all(tools);
    const stoppedAt = Date.now();
    const truth = await groundTruth(sb, sb.keys.live);
    await eventually(async () => ((await differences(m.mirror, truth)).length === 0 ? true : undefined), 30_000);
    await m.close();
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
    sb = await startTestSandbox({ rateLimit: 6000 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it.sequential('under 20 % faults and a session ended mid-read: the mirror ends equal to the API, each change announced once', async () => {
    const key = await sb.makeKey('live');
    // No retries: a fault ends the round part-way, and the next must pick up without skipping a page.
    const m = await mirrorOn(sb, key, logs, { client: { maxRetries: 0 } });
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
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
        await sleep(20);
      }
      throw new Error('no round completed in 45 s');
    };
    await sb.faults(0.2, ['500', 'reset']);
    try {
      // The session ends while the first read is under way.
      const first = roundThrough();
      await sleep(30);
      await sb.endSessions(key.key_id);
      await first;
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
    await sleep(50);
    try {
      // The faults did strike: rounds were cut short and calls answered 500 or dropped.
      expect(failed).toBeGreaterThan(0);
      // (An injected fault strikes before the call is tied to a key: counted over the whole log.)
      expect((await sb.requests()).filter((c) => c.status === 500 || c.status === 0).length).toBeGreaterThan(2);
      expect(await differences(m.mirror, await groundTruth(sb, sb.keys.live))).toEqual([]);
      const heard = m.heard.map((h) => `${h.event.kind} ${h.event.record.kind}/${h.event.record.id}`).sort();
      expect(heard).toEqual(expected.map((e) => `${e.kind} ${e.record.replace('invoicing://', '')}`).sort());
    } finally {
      await m.close();
    }
  }, 180_000);

  it.sequential('a failing background round is logged as a warning, and the next round goes on', async () => {
    const capture = captureLogs('warn');
    const key = await sb.makeKey('live');
    const m = await mirrorOn(sb, key, capture, { client: { maxRetries: 0 }, mirror: { pollSeconds: 1 } });
    try {
      await eventually(() => (m.mirror.stats().reads.products ? true : undefined), 10_000);
      await sb.faults(1, ['500']);
      await eventually(() => (capture.text().includes('sync round failed; the next round goes on') ? true : undefined), 5000);
      await sb.clearFaults();
      const reads = m.mirror.stats().reads.products ?? 0;
      await eventually(() => ((m.mirror.stats().reads.products ?? 0) > reads ? true : undefined), 10_000);
      expect(capture.lines().find((l) => l.msg === 'sync round failed; the next round goes on')?.level).toBe(40);
    } finally {
      await sb.clearFaults();
      await m.close();
    }
  }, 60_000);
});
