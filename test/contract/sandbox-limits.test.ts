// Contract: the limits (spec "Limits", "Errors: 429"; open-points "Wire details: Rate limit"): calls per key
// in a fixed window, lowered here to 5 per 30 s, and 10 sign-in attempts a minute per address (the default,
// kept). Windows are moved on with the sandbox clock, never waited out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  advanceClock,
  get,
  makeKey,
  type Reply,
  type SandboxHandle,
  send,
  signIn,
  signInRaw,
  start,
  wrongSecret,
} from './sandbox-http.js';

const LIMIT = 5;
const WINDOW_SECONDS = 30;

let sb: SandboxHandle;

beforeAll(async () => {
  sb = await start({ rateLimit: LIMIT, rateWindowSeconds: WINDOW_SECONDS });
});

afterAll(async () => {
  await sb?.close();
});

function expect429(reply: Reply, maxSeconds: number): number {
  expect(reply.status).toBe(429);
  expect(typeof reply.body.message).toBe('string');
  expect(reply.headers['retry-after']).toMatch(/^\d+$/);
  const seconds = Number(reply.headers['retry-after']);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  return seconds;
}

describe('calls per key', () => {
  it('counts down X-RateLimit-Remaining, then 429 with Retry-After until the window resets', async () => {
    const session = await signIn(sb.baseUrl, sb.keys.test);
    for (let i = 1; i <= LIMIT; i++) {
      const reply = await get(session, i % 2 ? '/api/v1/customers?per_page=1' : '/api/ping');
      expect(reply.status).toBe(200);
      expect(reply.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(reply.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    const refused = await get(session, '/api/v1/invoices');
    const retryAfter = expect429(refused, WINDOW_SECONDS);
    expect(refused.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-service-mode']).toBe('test');
    // The limit is the key's, whatever the endpoint or session; sign-in is not counted against it.
    expect429(await get(session, '/api/ping'), WINDOW_SECONDS);
    const again = await signIn(sb.baseUrl, sb.keys.test);
    expect429(await get(again, '/api/v1/products'), WINDOW_SECONDS);
    // Another key set has its own window.
    const other = await signIn(sb.baseUrl, sb.keys.live);
    const fresh = await get(other, '/api/ping');
    expect(fresh.status).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    await advanceClock(sb, retryAfter);
    const after = await get(session, '/api/v1/customers?per_page=1');
    expect(after.status).toBe(200);
    expect(after.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });
});

describe('the limit set through the admin interface', () => {
  it('takes a new limit and window at once, every window afresh; refuses one that is not whole and positive', async () => {
    const key = await makeKey(sb, 'test');
    const session = await signIn(sb.baseUrl, key);
    expect((await get(session, '/api/ping')).headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    const set = await admin(sb, 'PUT', '/rate-limit', { limit: 2, window_seconds: 60 });
    expect(set.body).toEqual({ limit: 2, window_seconds: 60 });
    for (const left of ['1', '0']) {
      const reply = await get(session, '/api/ping');
      expect(reply.headers['x-ratelimit-limit']).toBe('2');
      expect(reply.headers['x-ratelimit-remaining']).toBe(left);
    }
    expect429(await get(session, '/api/ping'), 60);
    const bad = await admin(sb, 'PUT', '/rate-limit', { limit: 0, window_seconds: 1.5 });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('window_seconds');
    await admin(sb, 'PUT', '/rate-limit', { limit: LIMIT, window_seconds: WINDOW_SECONDS });
    expect((await get(session, '/api/ping')).headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });
});

describe('sign-in attempts per address', () => {
  it('refuses the 11th attempt in a minute with 429 and Retry-After, failed attempts included', async () => {
    await advanceClock(sb, 61);
    const key = await makeKey(sb, 'test');
    const wrong = { key_id: key.key_id, secret: wrongSecret(key.secret) };
    for (let i = 0; i < 5; i++) expect((await signInRaw(sb.baseUrl, wrong)).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await signInRaw(sb.baseUrl, key)).status).toBe(201);
    const session = await signIn(sb.baseUrl, key);
    // Ten sign-ins did not touch the key's call window.
    expect((await get(session, '/api/ping')).headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    const eleventh = await signInRaw(sb.baseUrl, key);
    const retryAfter = expect429(eleventh, 60);
    expect(eleventh.body).not.toHaveProperty('access_token');
    const basic = Buffer.from(`${key.key_id}:${key.secret}`).toString('base64');
    expect429(await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { headers: { authorization: `Basic ${basic}` } }), 60);
    expect429(await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { json: {} }), 60);
    // Sessions already issued go on working.
    expect((await get(session, '/api/ping')).status).toBe(200);
    await advanceClock(sb, retryAfter);
    expect((await signInRaw(sb.baseUrl, key)).status).toBe(201);
  });
});
