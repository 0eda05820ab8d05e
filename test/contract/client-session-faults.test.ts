// Contract: the session survives faults and lost sessions without tripping our own sign-in throttle. Ten
// times over, on a fresh sandbox that keeps the service's own limit of 10 sign-ins a minute: 40 creates
// and 40 reads at a 20% fault rate (500s and drops before handling), every session ended after the 10th
// call and the service's clock moved past the session's expiry after the 20th. Every call succeeds, every
// create lands once, and only sign-ins the service answered count against the throttle. The runs share one
// sandbox (a key of their own each, the clock moved past the last run's sign-in minute), and the client's
// back-off moves its clock rather than waiting (support/test-time.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { makeClient } from '../support/client.js';
import { captureLogs, findLeaks } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { steppingTime } from '../support/test-time.js';

const logs = captureLogs('info');
// The default retry budget and throttle; eight retries rather than five, since a call is lost only when
// all its attempts fault (0.2^9 per call over 800 calls).
const OPTIONS = { maxRetries: 8, backoffBaseMs: 5, backoffMaxMs: 100 };

type Call = (c: ApiClient, i: number) => Promise<unknown>;

async function runInOrder(c: ApiClient, sb: TestSandbox, calls: Call[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < calls.length; i++) {
    if (i === 10) await sb.endSessions();
    if (i === 20) await sb.advanceClock(3_700);
    out.push(await (calls[i] as Call)(c, i));
  }
  return out;
}

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ signInLimit: 10, rateLimit: 1_000_000 });
});
afterAll(async () => {
  await sb?.close();
});

async function oneRun(n: number): Promise<void> {
  // A new minute for the sign-in limit, and a key of the run's own.
  await sb.advanceClock(61);
  const key = await sb.makeKey('live');
  const time = steppingTime();
  const c = makeClient(sb, key, logs, OPTIONS, { now: time.now, sleep: time.sleep });
  const run = `S${n}x${Date.now().toString(36)}`;
  try {
    await sb.faults(0.2, ['500', 'reset']);
    const calls: Call[] = Array.from({ length: 80 }, (_, i) =>
      i % 2 === 0
        ? (cl) => cl.customers.create({ name: `${run} customer ${i / 2}` })
        : (cl) => cl.invoices.get((i % 50) + 1, { cache: 'skip' }),
    );
    const results = await runInOrder(c, sb, calls);
    await sb.clearFaults();
    expect(results.every((r) => r !== undefined)).toBe(true);
    const listed: string[] = [];
    for await (const cust of c.customers.all({ search: `${run} customer` }, { cache: 'skip' })) listed.push(cust.name);
    expect(listed.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `${run} customer ${i}`).sort());
    // Answered sign-ins, by the service's own log: at least the first, the one after the sessions ended and
    // the one after expiry; those the service answered are all we counted.
    const answered = (await sb.signIns(key.key_id)).filter((s) => s.status !== 0);
    expect(answered.filter((s) => s.status === 201).length).toBeGreaterThanOrEqual(3);
    expect(c.stats().signIns).toBeGreaterThanOrEqual(3);
    expect(c.stats().signIns).toBeLessThanOrEqual(8);
  } finally {
    await sb.clearFaults();
    await c.close();
  }
}

describe('sessions lost under faults', () => {
  it('ten runs of 40 creates and 40 reads all succeed, each create once, without our throttle refusing', async () => {
    for (let n = 0; n < 10; n++) await oneRun(n);
    expect(logs.text()).not.toMatch(/sign-ins? in the last minute/);
    expect(findLeaks(logs.text(), sb.secrets)).toEqual([]);
  }, 120_000);
});
