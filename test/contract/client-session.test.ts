// Contract: the client's session against the running sandbox: lazy and single-flight sign-in, renewal
// before and across the session's end, recovery after the business ends sessions, a regenerated key,
// and sign-out on close. Sign-ins are counted from the sandbox's own audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, Unauthorized } from '../../src/api/index.js';
import { makeClient } from '../support/client.js';
import { captureLogs, findLeaks } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const logs = captureLogs();
let sb: TestSandbox;
const clients: ApiClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sb?.close();
  // The scan means something: requests with their Authorization header and refusals were logged.
  expect(logs.text()).toContain('"authorization":"[redacted]"');
  expect(logs.text()).toContain('"type":"Unauthorized"');
  expect(findLeaks(logs.text(), sb.secrets)).toEqual([]);
});

function client(
  key: Parameters<typeof makeClient>[1],
  options: Parameters<typeof makeClient>[3] = {},
  deps: Parameters<typeof makeClient>[4] = {},
): ApiClient {
  const c = makeClient(sb, key, logs, options, deps);
  clients.push(c);
  return c;
}

/** Statuses of the key's calls other than sign-in, in order. */
async function calls(keyId: string): Promise<number[]> {
  return (await sb.requests(keyId)).filter((r) => r.path !== '/api/v1/auth/token').map((r) => r.status);
}

describe('sign-in', () => {
  it('is lazy: making a client signs nothing in; the first call does', async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    await new Promise((r) => setTimeout(r, 50));
    expect(await sb.signIns(key.key_id)).toHaveLength(0);
    await c.customers.get(1);
    const signIns = await sb.signIns(key.key_id);
    expect(signIns).toHaveLength(1);
    expect(signIns[0]?.status).toBe(201);
  });

  it('signs in once for 50 concurrent first calls', async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => c.invoices.get(i + 1)));
    expect(results.map((r) => r.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await sb.signIns(key.key_id)).toHaveLength(1);
    expect(c.stats().signIns).toBe(1);
  });

  it('reports the session: mode, scopes and business', async () => {
    const key = await sb.makeKey('test', ['invoices.read']);
    const info = await client(key).session();
    expect(info.mode).toBe('test');
    expect(info.keyId).toBe(key.key_id);
    expect(info.scopes).toEqual(['invoices.read']);
    expect(info.business?.id).toBe(1);
    expect(info.expiresAt).toBeGreaterThan(Date.now());
  });
});

describe('renewal', () => {
  it('renews before expiry, without a 401 (client clock near the end of the hour)', async () => {
    const key = await sb.makeKey('test');
    let offset = 0;
    const c = client(key, {}, { now: () => Date.now() + offset });
    await c.ping();
    offset = 3_550_000; // 50 s before the hour is out: inside the renewal margin
    await sb.advanceClock(3550);
    await c.ping();
    expect(await sb.signIns(key.key_id)).toHaveLength(2);
    expect(await calls(key.key_id)).toEqual([200, 200]);
  });

  it("signs in again across the session's end (sandbox clock) and the call succeeds", async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    await c.ping();
    await sb.advanceClock(3601);
    const ping = await c.ping();
    expect(ping.ok).toBe(true);
    expect(await sb.signIns(key.key_id)).toHaveLength(2);
    expect(await calls(key.key_id)).toEqual([200, 401, 200]);
  });

  it('recovers transparently after the business ends every session', async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    await c.customers.list({ per_page: 5 });
    expect(await sb.endSessions(key.key_id)).toBeGreaterThanOrEqual(1);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => c.customers.get(i + 1, { cache: 'skip' })));
    expect(results).toHaveLength(10);
    expect(await sb.signIns(key.key_id)).toHaveLength(2);
  });
});

describe('a regenerated key', () => {
  it('gives Unauthorized with a clear message after at most 2 sign-in attempts', async () => {
    const key = await sb.makeKey('test');
    const c = client(key);
    await c.ping();
    await sb.regenerate(key.key_id);
    const err = await c.invoices.get(1).catch(logs.caught);
    expect(err).toBeInstanceOf(Unauthorized);
    expect((err as Error).message).toMatch(/regenerated or revoked/);
    expect((err as Error).message).toMatch(/SVC_KEY_ID and SVC_SECRET/);
    expect((err as Error).message).not.toContain(key.secret);
    // More calls in the cool-down do not sign in again.
    for (let i = 0; i < 5; i++) await expect(c.invoices.get(2)).rejects.toBeInstanceOf(Unauthorized);
    const attempts = await sb.signIns(key.key_id);
    expect(attempts.length).toBeLessThanOrEqual(2);
    expect(attempts.map((a) => a.status)).toEqual([201, 401]);
  });

  it('keeps sign-ins to a few a minute when every sign-in is refused', async () => {
    const key = await sb.makeKey('test');
    const c = client(key, { signInFailureCooldownMs: 0, maxWaitMs: 100, maxSignInsPerMinute: 4 });
    await c.ping();
    await sb.regenerate(key.key_id);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () => c.ping().catch((e: unknown) => Promise.reject(logs.caught(e)))),
    );
    for (let i = 0; i < 10; i++) outcomes.push(...(await Promise.allSettled([c.ping()])));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect((await sb.signIns(key.key_id)).length).toBeLessThanOrEqual(4);
  });
});

describe('shutdown', () => {
  it('signs out on close: the session ends at the service', async () => {
    const key = await sb.makeKey('test');
    const c = createClientUntracked(key);
    await c.ping();
    await c.close();
    const last = (await sb.requests(key.key_id)).at(-1);
    expect(last).toMatchObject({ method: 'DELETE', path: '/api/v1/auth/token', status: 200 });
  });
});

function createClientUntracked(key: Parameters<typeof makeClient>[1]): ApiClient {
  return makeClient(sb, key, logs);
}
