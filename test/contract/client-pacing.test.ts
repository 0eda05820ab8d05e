// Contract: pacing to the service's own rate-limit headers. With the sandbox at 10 calls per 1-second
// window, 60 calls (six windows' worth) all complete and no 429 reaches the caller; a call that would wait
// past its bound (on a 2-second window) fails with RateLimited saying when to retry. The client's clock and
// timers skip the waits for a window to turn, moving the sandbox's clock with them (support/test-time.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, RateLimited } from '../../src/api/index.js';
import { makeClient } from '../support/client.js';
import { captureLogs, findLeaks } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { skippingTime, type TestTime } from '../support/test-time.js';

const logs = captureLogs();
let sb: TestSandbox;
let twoSecondWindow: TestSandbox;
const clients: ApiClient[] = [];
const times: (TestTime & { stop(): void })[] = [];

/** A client of `key` on `on`, on a clock that skips the waits while none of its calls is in flight. */
async function pacedClient(on: TestSandbox, options: { maxWaitMs?: number } = {}): Promise<{ c: ApiClient; time: TestTime }> {
  const key = await on.makeKey('test');
  let c: ApiClient | undefined;
  const time = await skippingTime(on, () => (c?.stats().rateLimit.inFlight ?? 0) > 0);
  times.push(time);
  c = makeClient(on, key, logs, options, { now: time.now, timers: time.timers });
  clients.push(c);
  return { c, time };
}

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 10, rateWindowSeconds: 1 });
  twoSecondWindow = await startTestSandbox({ rateLimit: 10, rateWindowSeconds: 2 });
});

afterAll(async () => {
  for (const time of times) time.stop();
  await Promise.all(clients.map((c) => c.close()));
  await sb?.close();
  await twoSecondWindow?.close();
  expect(findLeaks(logs.text(), [...sb.secrets, ...twoSecondWindow.secrets])).toEqual([]);
});

describe('pacing', () => {
  it('completes 60 calls at 10 per 1 s with none failed and no 429 reaching the caller', async () => {
    const { c, time } = await pacedClient(sb);
    const started = time.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) =>
        i % 2 === 0 ? c.invoices.get((i % 40) + 1, { cache: 'skip' }) : c.customers.list({ page: (i % 5) + 1 }, { cache: 'skip' }),
      ),
    );
    const failed = outcomes.filter((o) => o.status === 'rejected');
    expect(failed).toEqual([]);
    const served = (await sb.requests(c.keyId)).filter((r) => r.path !== '/api/v1/auth/token');
    expect(served.filter((r) => r.status === 200)).toHaveLength(60);
    // The budget came from the headers: the client learnt the limit of 10.
    expect(c.stats().rateLimit.limit).toBe(10);
    // Probes that met a spent window are few: at most about one per window.
    expect(served.filter((r) => r.status === 429).length).toBeLessThanOrEqual(8);
    // Six windows' calls: five turns of the window at the least (less a tenth for where the first began).
    expect(time.now() - started).toBeGreaterThan(4_500);
    // And no more than it takes: held no longer than the windows ask (on a real clock, the test's time limit).
    expect(time.now() - started).toBeLessThan(20_000);
  });

  it('a call that would wait longer than its bound fails with RateLimited and says when', async () => {
    const { c } = await pacedClient(twoSecondWindow, { maxWaitMs: 500 });
    const outcomes = await Promise.allSettled(Array.from({ length: 14 }, (_, i) => c.invoices.get(i + 1, { cache: 'skip' })));
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThanOrEqual(10);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      logs.caught(r.reason);
      expect(r.reason).toBeInstanceOf(RateLimited);
      expect((r.reason as RateLimited).retryAfter).toBeGreaterThanOrEqual(1);
      expect((r.reason as Error).message).toMatch(/Retry after \d+ seconds?/);
    }
  });
});
