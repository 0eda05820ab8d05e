// Contract: the service's clock on the wire. Every answer of the sandbox carries its own clock (the one the
// admin interface moves) in the HTTP Date header, not the host's; the client follows it from each answer,
// so a clock moved between sign-ins is known from the next call, with no new sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { authHeaders, send, signIn, signInRaw } from './sandbox-http.js';

const logs = captureLogs('error');
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox({ today: '2030-01-31' });
});
afterAll(async () => {
  await sb?.close();
});

/** The sandbox's clock as its admin interface reads it (ms). */
const sandboxNow = async (): Promise<number> => Date.parse((await sb.clock()).now);

describe('the Date header', () => {
  it('is the sandbox clock on every answer: sign-in, a read, a refusal, the admin interface', async () => {
    await sb.advanceClock(3 * 86_400 + 1234);
    const expected = await sandboxNow();
    const session = await signIn(sb.baseUrl, sb.keys.test);
    const replies = [
      await signInRaw(sb.baseUrl, sb.keys.test),
      await send('GET', `${sb.baseUrl}/api/v1/invoices?per_page=1`, { headers: authHeaders(session) }),
      await send('GET', `${sb.baseUrl}/api/v1/invoices/0`, { headers: authHeaders(session) }),
      await send('GET', `${sb.baseUrl}/api/ping`),
      await send('GET', `${sb.baseUrl}/_sandbox/clock`, { headers: { authorization: `Bearer ${sb.adminToken}` } }),
    ];
    expect(replies.map((r) => r.status)).toEqual([201, 200, 404, 401, 200]);
    for (const r of replies) {
      const date = Date.parse(String(r.headers.date));
      // Whole seconds, stamped a moment after `expected`, years from the host's own clock.
      expect(date).toBeGreaterThanOrEqual(Math.floor(expected / 1000) * 1000);
      expect(date).toBeLessThanOrEqual(expected + 5_000);
    }
  });
});

describe("the client's reading of the service's clock", () => {
  it('follows a clock moved between sign-ins from the next answer', async () => {
    const key = await sb.makeKey('test');
    const api = makeClient(sb, key, logs);
    try {
      expect(api.serviceNow()).toBeNull();
      await api.ping();
      expect(Math.abs((api.serviceNow() as number) - (await sandboxNow()))).toBeLessThan(1_500);
      await sb.advanceClock(20 * 60);
      const moved = await sandboxNow();
      // Nothing heard since the move: the client cannot know yet.
      expect(moved - (api.serviceNow() as number)).toBeGreaterThan(19 * 60_000);
      await api.invoices.list({ per_page: 1 }, { cache: 'skip' });
      expect(Math.abs((api.serviceNow() as number) - (await sandboxNow()))).toBeLessThan(1_500);
      expect(api.stats().signIns).toBe(1);
    } finally {
      await api.close();
    }
  });
});
