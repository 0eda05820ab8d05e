// Contract: the admin interface (open-points "The business side"): its guard, key admin input, the audit
// log (spec "What the service does: Audit"), fault injection and the clock. Webhooks are in
// sandbox-webhooks, key lifecycle in sandbox-auth.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  advanceClock,
  get,
  type Json,
  type KeyPair,
  makeKey,
  post,
  type SandboxHandle,
  type Session,
  send,
  signIn,
  signInRaw,
  sortedKeys,
  start,
  wrongSecret,
} from './sandbox-http.js';

let sb: SandboxHandle;
let live: Session;

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  live = await signIn(sb.baseUrl, sb.keys.live);
});

afterAll(async () => {
  await sb?.close();
});

describe('the admin guard', () => {
  it('answers only with the admin token: 401 JSON otherwise', async () => {
    const none = await send('GET', `${sb.baseUrl}/_sandbox/clock`);
    expect(none.status).toBe(401);
    expect(typeof none.body.message).toBe('string');
    const wrong = await send('GET', `${sb.baseUrl}/_sandbox/clock`, { headers: { authorization: `Bearer ${sb.adminToken}x` } });
    expect(wrong.status).toBe(401);
    const session = await send('POST', `${sb.baseUrl}/_sandbox/keys`, {
      headers: { authorization: `Bearer ${live.token}` },
      json: { mode: 'live' },
    });
    expect(session.status).toBe(401);
    expect((await admin(sb, 'GET', '/clock')).status).toBe(200);
  });

  it('makes key sets: {key_id, secret, mode, scopes}; bad input is 422', async () => {
    const made = await admin(sb, 'POST', '/keys', { mode: 'test', scopes: ['quotes.read'] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ mode: 'test', scopes: ['quotes.read'] });
    expect(made.body.key_id).toMatch(/^svck_test_/);
    expect(made.body.secret).toMatch(/^svc_test_/);
    const none = await admin(sb, 'POST', '/keys', { mode: 'live' });
    expect([...none.body.scopes].sort()).toEqual(['customers.read', 'invoices.read', 'payments.read', 'products.read', 'quotes.read']);
    for (const [body, field] of [
      [{ mode: 'staging' }, 'mode'],
      [{ mode: 'live', scopes: ['everything'] }, 'scopes'],
      [{ mode: 'live', business_id: 3 }, 'business_id'],
    ] as const) {
      const reply = await admin(sb, 'POST', '/keys', body);
      expect(reply.status).toBe(422);
      expect(reply.body.errors).toHaveProperty([field]);
    }
    expect((await admin(sb, 'POST', '/keys/svck_live_nope/suspend')).status).toBe(404);
  });
});

describe('the audit log', () => {
  let key: KeyPair;
  const entriesOf = async (kind: 'requests' | 'signins', keyId: string): Promise<Json[]> => {
    const reply = await admin(sb, 'GET', `/logs?kind=${kind}`);
    expect(reply.status).toBe(200);
    expect(sortedKeys(reply.body)).toEqual(['data']);
    return reply.body.data.filter((e: Json) => e.key_id === keyId);
  };

  beforeAll(async () => {
    key = await makeKey(sb, 'live');
  });

  it('records every call, refused ones included: method, path, status, time and error message', async () => {
    const session = await signIn(sb.baseUrl, key);
    await get(session, '/api/v1/customers?per_page=2');
    await get(session, '/api/v1/invoices/999999999');
    await post(session, '/api/v1/customers', { name: 'Audit' });
    await send('GET', `${sb.baseUrl}/api/v1/quotes`, { headers: { authorization: `Bearer ${key.secret}`, 'x-service-key': key.key_id } });
    await send('GET', `${sb.baseUrl}/api/v1/payments`, { headers: { 'x-service-key': key.key_id } });
    const entries = await entriesOf('requests', key.key_id);
    const summary = entries.map((e) => [e.method, e.path, e.status]);
    expect(summary).toEqual([
      ['POST', '/api/v1/auth/token', 201],
      ['GET', '/api/v1/customers?per_page=2', 200],
      ['GET', '/api/v1/invoices/999999999', 404],
      ['POST', '/api/v1/customers', 403],
      ['GET', '/api/v1/quotes', 401],
      ['GET', '/api/v1/payments', 401],
    ]);
    for (const e of entries) {
      expect(typeof e.ms).toBe('number');
      expect(e.ms).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(e.at))).toBe(false);
      if (e.status < 400) expect(e.error).toBeNull();
      else expect(typeof e.error === 'string' && e.error.length > 0).toBe(true);
    }
    expect(entries[3].error).toMatch(/customers\.write/);
  });

  it('records every sign-in, failed ones included', async () => {
    await signInRaw(sb.baseUrl, { key_id: key.key_id, secret: wrongSecret(key.secret) });
    await signInRaw(sb.baseUrl, key);
    const entries = await entriesOf('signins', key.key_id);
    expect(entries.map((e) => e.status)).toEqual([201, 401, 201]);
    for (const e of entries) {
      expect(typeof e.ip).toBe('string');
      expect(e.ip).toMatch(/127\.0\.0\.1/);
      if (e.status === 201) expect(e.error).toBeNull();
      else expect(typeof e.error).toBe('string');
    }
  });

  it('holds no secret and no session token', async () => {
    const session = await signIn(sb.baseUrl, key);
    await get(session, '/api/ping');
    const text = JSON.stringify([
      (await admin(sb, 'GET', '/logs?kind=requests')).body,
      (await admin(sb, 'GET', '/logs?kind=signins')).body,
    ]);
    for (const secret of [key.secret, sb.keys.live.secret, sb.keys.test.secret, session.token, live.token]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/svc_(live|test)_[A-Za-z0-9]/);
    expect(text).not.toMatch(/svcat_[A-Za-z0-9]/);
    expect((await admin(sb, 'GET', '/logs?kind=everything')).status).toBe(422);
  });

  it('holds no secret even when a client sends it where the key ID belongs', async () => {
    const swapped = await makeKey(sb, 'live');
    expect((await signInRaw(sb.baseUrl, { key_id: swapped.secret, secret: swapped.key_id })).status).toBe(401);
    const basic = Buffer.from(`${swapped.secret}:${swapped.secret}`).toString('base64');
    await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { headers: { authorization: `Basic ${basic}` } });
    await send('GET', `${sb.baseUrl}/api/v1/customers?key=${swapped.secret}`, {
      headers: { authorization: `Bearer ${swapped.secret}`, 'x-service-key': swapped.secret },
    });
    const session = await signIn(sb.baseUrl, swapped);
    await send('GET', `${sb.baseUrl}/api/ping`, { headers: { authorization: `Bearer ${session.token}`, 'x-service-key': session.token } });
    const requests = (await admin(sb, 'GET', '/logs?kind=requests')).body.data;
    const signins = (await admin(sb, 'GET', '/logs?kind=signins')).body.data;
    const text = JSON.stringify([requests, signins]);
    expect(text).not.toContain(swapped.secret);
    expect(text).not.toContain(session.token);
    // The attempts are still there to be seen.
    expect(signins.filter((e: Json) => e.status === 401).length).toBeGreaterThanOrEqual(2);
    expect(requests.some((e: Json) => e.path.startsWith('/api/v1/customers?key=') && e.status === 401)).toBe(true);
  });
});

describe('fault injection on /api calls', () => {
  const customerCount = async (name: string): Promise<number> =>
    (await get(live, `/api/v1/customers?search=${encodeURIComponent(name)}`)).body.meta.total;
  const setFaults = async (body: Json): Promise<void> => {
    const reply = await admin(sb, 'PUT', '/faults', body);
    expect(reply.status).toBe(200);
  };
  const clearFaults = async (): Promise<void> => {
    expect((await admin(sb, 'DELETE', '/faults')).status).toBe(200);
  };

  it('"500": a JSON 500 with a message, logged; the admin interface is untouched', async () => {
    await setFaults({ rate: 1, kinds: ['500'] });
    try {
      const reply = await get(live, '/api/v1/customers?per_page=1&fault=500');
      expect(reply.status).toBe(500);
      expect(typeof reply.body.message).toBe('string');
      const name = `Fault 500 ${randomUUID()}`;
      expect((await post(live, '/api/v1/customers', { name })).status).toBe(500);
      await clearFaults();
      expect(await customerCount(name)).toBe(0);
      await setFaults({ rate: 1, kinds: ['500'] });
      expect((await admin(sb, 'GET', '/clock')).status).toBe(200);
    } finally {
      await clearFaults();
    }
    const log = (await admin(sb, 'GET', '/logs?kind=requests')).body.data;
    expect(log.find((e: Json) => e.path === '/api/v1/customers?per_page=1&fault=500')?.status).toBe(500);
    expect((await get(live, '/api/v1/customers?per_page=1')).status).toBe(200);
  });

  it('"reset": the connection drops before handling, so a create is not applied', async () => {
    const name = `Reset Before ${randomUUID()}`;
    await setFaults({ rate: 1, kinds: ['reset'] });
    try {
      await expect(post(live, '/api/v1/customers', { name }, { 'idempotency-key': randomUUID() })).rejects.toThrow();
      await expect(get(live, '/api/ping')).rejects.toThrow();
    } finally {
      await clearFaults();
    }
    expect(await customerCount(name)).toBe(0);
  });

  it('"reset_after": the create is applied though the connection drops; a retry with the same key replays it', async () => {
    const name = `Reset After ${randomUUID()}`;
    const key = randomUUID();
    await setFaults({ rate: 1, kinds: ['reset_after'] });
    try {
      await expect(post(live, '/api/v1/customers', { name }, { 'idempotency-key': key })).rejects.toThrow();
    } finally {
      await clearFaults();
    }
    const listed = await get(live, `/api/v1/customers?search=${encodeURIComponent(name)}`);
    expect(listed.body.meta.total).toBe(1);
    const retry = await post(live, '/api/v1/customers', { name }, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data).toEqual(listed.body.data[0]);
    expect(await customerCount(name)).toBe(1);
  });

  it('"latency": the answer comes late but right', async () => {
    await setFaults({ rate: 1, kinds: ['latency'], latency_ms: 600 });
    try {
      const reply = await get(live, '/api/v1/products?per_page=1');
      expect(reply.status).toBe(200);
      expect(reply.ms).toBeGreaterThanOrEqual(580);
      expect(reply.body.data).toHaveLength(1);
    } finally {
      await clearFaults();
    }
    const quick = await get(live, '/api/v1/products?per_page=1');
    expect(quick.ms).toBeLessThan(400);
  });

  it('refuses settings it does not know with 422', async () => {
    for (const body of [
      { rate: 2, kinds: ['500'] },
      { rate: 1, kinds: ['explode'] },
      { rate: 1, kinds: [] },
    ]) {
      expect((await admin(sb, 'PUT', '/faults', body)).status).toBe(422);
    }
    expect((await get(live, '/api/ping')).status).toBe(200);
  });
});

describe('the clock', () => {
  it('advances by the seconds given; refuses a negative amount', async () => {
    const before = Date.parse((await admin(sb, 'GET', '/clock')).body.now);
    const moved = await admin(sb, 'POST', '/clock', { advance_seconds: 120 });
    expect(moved.status).toBe(200);
    const after = Date.parse(moved.body.now);
    expect(after - before).toBeGreaterThanOrEqual(120_000);
    expect(after - before).toBeLessThan(125_000);
    expect((await admin(sb, 'POST', '/clock', { advance_seconds: -5 })).status).toBe(422);
    expect((await admin(sb, 'POST', '/clock', { advance_seconds: 'soon' })).status).toBe(422);
  });

  it('keeps the audit log 90 days and no longer', async () => {
    const key = await makeKey(sb, 'test');
    await signIn(sb.baseUrl, key);
    const count = async (kind: string): Promise<number> =>
      (await admin(sb, 'GET', `/logs?kind=${kind}`)).body.data.filter((e: Json) => e.key_id === key.key_id).length;
    expect(await count('requests')).toBe(1);
    expect(await count('signins')).toBe(1);
    await advanceClock(sb, 89 * 86_400);
    expect(await count('requests')).toBe(1);
    expect(await count('signins')).toBe(1);
    await advanceClock(sb, 2 * 86_400);
    expect(await count('requests')).toBe(0);
    expect(await count('signins')).toBe(0);
  });
});
