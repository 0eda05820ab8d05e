// Contract: sign-in, sessions and the key set's life (spec "Authentication", "States: Session", "Modes";
// open-points "Wire details"), against the running sandbox over HTTP.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  advanceClock,
  get,
  isNzTimestamp,
  type KeyPair,
  makeKey,
  type Reply,
  type SandboxHandle,
  type Session,
  send,
  signIn,
  signInRaw,
  sortedKeys,
  start,
  wrongSecret,
} from './sandbox-http.js';

const ALL_SCOPES = [
  'customers.read',
  'invoices.read',
  'quotes.read',
  'payments.read',
  'products.read',
  'customers.write',
  'invoices.write',
];
const READ_SCOPES = ALL_SCOPES.filter((s) => s.endsWith('.read'));

let sb: SandboxHandle;

beforeAll(async () => {
  sb = await start({ signInLimit: 1000 });
});

afterAll(async () => {
  await sb?.close();
});

const ping = (session: Session, headers: Record<string, string> = {}): Promise<Reply> => get(session, '/api/ping', headers);

function expect401(reply: Reply): void {
  expect(reply.status).toBe(401);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof reply.body.message).toBe('string');
  expect(reply.body.message.length).toBeGreaterThan(0);
}

async function sandboxNow(): Promise<number> {
  const reply = await admin(sb, 'GET', '/clock');
  return Date.parse(reply.body.now);
}

describe('sign-in', () => {
  it('hands out keys with the documented prefixes', () => {
    expect(sb.keys.test.key_id).toMatch(/^svck_test_[A-Za-z0-9_-]{24}$/);
    expect(sb.keys.test.secret).toMatch(/^svc_test_[A-Za-z0-9_-]{40}$/);
    expect(sb.keys.live.key_id).toMatch(/^svck_live_[A-Za-z0-9_-]{24}$/);
    expect(sb.keys.live.secret).toMatch(/^svc_live_[A-Za-z0-9_-]{40}$/);
  });

  it('signs in with a JSON body: 201 with every documented field', async () => {
    const before = await sandboxNow();
    const reply = await signInRaw(sb.baseUrl, sb.keys.test);
    expect(reply.status).toBe(201);
    const body = reply.body;
    expect(sortedKeys(body)).toEqual(
      ['access_token', 'business', 'expires_at', 'expires_in', 'key_id', 'mode', 'scopes', 'token_type'].sort(),
    );
    expect(body.access_token).toMatch(/^svcat_[A-Za-z0-9_-]{40}$/);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(isNzTimestamp(body.expires_at), `body.expires_at: ${body.expires_at}`).toBe(true);
    const lifetime = (Date.parse(body.expires_at) - before) / 1000;
    expect(lifetime).toBeGreaterThanOrEqual(3599);
    expect(lifetime).toBeLessThanOrEqual(3602);
    expect(body.mode).toBe('test');
    expect(body.key_id).toBe(sb.keys.test.key_id);
    expect([...body.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    expect(sortedKeys(body.business)).toEqual(['id', 'name']);
    expect(Number.isInteger(body.business.id)).toBe(true);
    expect(typeof body.business.name).toBe('string');
    expect(reply.headers['x-service-mode']).toBe('test');
    expect(reply.headers['x-service-session-expires']).toBe(body.expires_at);
  });

  it('signs in with HTTP Basic (key ID as user name, secret as password)', async () => {
    const basic = Buffer.from(`${sb.keys.live.key_id}:${sb.keys.live.secret}`).toString('base64');
    const reply = await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { headers: { authorization: `Basic ${basic}` } });
    expect(reply.status).toBe(201);
    expect(reply.body.mode).toBe('live');
    expect(reply.body.key_id).toBe(sb.keys.live.key_id);
    expect(reply.headers['x-service-mode']).toBe('live');
    const session = { baseUrl: sb.baseUrl, keyId: sb.keys.live.key_id, token: reply.body.access_token, signIn: reply.body };
    expect((await ping(session)).status).toBe(200);
  });

  it('refuses a wrong secret, an unknown key ID and a secret of the other mode with 401', async () => {
    const attempts: KeyPair[] = [
      { key_id: sb.keys.test.key_id, secret: wrongSecret(sb.keys.test.secret) },
      { key_id: 'svck_test_AAAAAAAAAAAAAAAAAAAAAAAA', secret: sb.keys.test.secret },
      { key_id: sb.keys.test.key_id, secret: sb.keys.live.secret },
    ];
    for (const key of attempts) expect401(await signInRaw(sb.baseUrl, key));
    const basic = Buffer.from(`${sb.keys.live.key_id}:wrong`).toString('base64');
    expect401(await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { headers: { authorization: `Basic ${basic}` } }));
  });

  it('refuses an invalid sign-in body with 422 keyed by field', async () => {
    const empty = await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { json: {} });
    expect(empty.status).toBe(422);
    expect(typeof empty.body.message).toBe('string');
    expect(empty.body.errors.key_id).toEqual([expect.any(String)]);
    expect(empty.body.errors.secret).toEqual([expect.any(String)]);
    const wrongType = await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { json: { key_id: 42, secret: sb.keys.test.secret } });
    expect(wrongType.status).toBe(422);
    expect(Object.keys(wrongType.body.errors)).toEqual(['key_id']);
  });

  it('lists only the read scopes for a key made with none ticked', async () => {
    const session = await signIn(sb.baseUrl, await makeKey(sb, 'live', []));
    expect([...session.signIn.scopes].sort()).toEqual([...READ_SCOPES].sort());
    const limited = await signIn(sb.baseUrl, await makeKey(sb, 'test', ['customers.read', 'invoices.write']));
    expect([...limited.signIn.scopes].sort()).toEqual(['customers.read', 'invoices.write']);
  });
});

describe('a session', () => {
  it('pings: 200 with ok, mode, business and session_expires_at', async () => {
    for (const mode of ['test', 'live'] as const) {
      const session = await signIn(sb.baseUrl, sb.keys[mode]);
      const reply = await ping(session);
      expect(reply.status).toBe(200);
      expect(sortedKeys(reply.body)).toEqual(['business', 'mode', 'ok', 'session_expires_at']);
      expect(reply.body.ok).toBe(true);
      expect(reply.body.mode).toBe(mode);
      expect(reply.body.business).toEqual(session.signIn.business);
      expect(reply.body.session_expires_at).toBe(session.signIn.expires_at);
      expect(reply.headers['x-service-mode']).toBe(mode);
      expect(reply.headers['x-service-session-expires']).toBe(session.signIn.expires_at);
    }
  });

  it('carries X-RateLimit-Limit (120 by default) and a falling X-RateLimit-Remaining', async () => {
    const session = await signIn(sb.baseUrl, await makeKey(sb, 'test'));
    const remaining: number[] = [];
    for (const path of ['/api/ping', '/api/v1/customers?per_page=1', '/api/v1/products/999999999']) {
      const reply = await get(session, path);
      expect(reply.headers['x-ratelimit-limit']).toBe('120');
      expect(reply.headers['x-service-mode']).toBe('test');
      expect(reply.headers['x-service-session-expires']).toBe(session.signIn.expires_at);
      remaining.push(Number(reply.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([119, 118, 117]);
  });

  it('refuses the 121st call in a window with the default limit', async () => {
    const session = await signIn(sb.baseUrl, await makeKey(sb, 'test'));
    for (let i = 0; i < 120; i++) expect((await ping(session)).status).toBe(200);
    const refused = await ping(session);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('refuses a call without a session token with 401, and still carries the service headers', async () => {
    const reply = await send('GET', `${sb.baseUrl}/api/v1/customers`, { headers: { 'x-service-key': sb.keys.test.key_id } });
    expect401(reply);
    expect(reply.headers['x-service-mode']).toBe('test');
    expect(reply.headers).toHaveProperty('x-service-session-expires');
    expect401(await send('GET', `${sb.baseUrl}/api/ping`));
  });

  it('refuses a token that was never issued, and HTTP Basic on an ordinary call, with 401', async () => {
    const session = await signIn(sb.baseUrl, sb.keys.test);
    expect401(await ping({ ...session, token: `svcat_${'x'.repeat(40)}` }));
    const basic = Buffer.from(`${sb.keys.test.key_id}:${sb.keys.test.secret}`).toString('base64');
    expect401(
      await send('GET', `${sb.baseUrl}/api/ping`, { headers: { authorization: `Basic ${basic}`, 'x-service-key': sb.keys.test.key_id } }),
    );
  });

  it('refuses the secret sent as the bearer token with 401 that points to sign-in', async () => {
    const reply = await send('GET', `${sb.baseUrl}/api/v1/customers`, {
      headers: { authorization: `Bearer ${sb.keys.test.secret}`, 'x-service-key': sb.keys.test.key_id },
    });
    expect401(reply);
    expect(reply.body.message).toContain('POST /api/v1/auth/token');
    expect(reply.text).not.toContain(sb.keys.test.secret);
  });

  it('works only with its own X-Service-Key: another key ID or none is 401', async () => {
    const session = await signIn(sb.baseUrl, sb.keys.test);
    expect((await ping(session)).status).toBe(200);
    expect401(await ping({ ...session, keyId: sb.keys.live.key_id }));
    const other = await makeKey(sb, 'test');
    expect401(await ping({ ...session, keyId: other.key_id }));
    expect401(await send('GET', `${sb.baseUrl}/api/ping`, { headers: { authorization: `Bearer ${session.token}` } }));
    expect((await ping(session)).status).toBe(200);
  });

  it('ends at sign-out: 200 {ok: true}, then 401; other sessions of the key go on', async () => {
    const a = await signIn(sb.baseUrl, sb.keys.live);
    const b = await signIn(sb.baseUrl, sb.keys.live);
    const out = await send('DELETE', `${sb.baseUrl}/api/v1/auth/token`, {
      headers: { authorization: `Bearer ${a.token}`, 'x-service-key': a.keyId },
    });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true });
    // Signing out needs the token's own key ID too.
    const mismatched = await send('DELETE', `${sb.baseUrl}/api/v1/auth/token`, {
      headers: { authorization: `Bearer ${b.token}`, 'x-service-key': sb.keys.test.key_id },
    });
    expect401(mismatched);
    expect401(await ping(a));
    expect401(await get(a, '/api/v1/customers'));
    expect((await ping(b)).status).toBe(200);
  });

  it('expires one hour after sign-in on the sandbox clock', async () => {
    const key = await makeKey(sb, 'test');
    const session = await signIn(sb.baseUrl, key);
    await advanceClock(sb, 3500);
    expect((await ping(session)).status).toBe(200);
    await advanceClock(sb, 101);
    const reply = await ping(session);
    expect401(reply);
    expect(reply.body.message).toMatch(/expired/i);
    expect401(await get(session, '/api/v1/invoices'));
    const again = await signIn(sb.baseUrl, key);
    expect((await ping(again)).status).toBe(200);
  });
});

describe('the business ends sessions and manages the key set', () => {
  it('ends the sessions of one key, then of every key ("sign out everything")', async () => {
    const keyA = await makeKey(sb, 'live');
    const keyB = await makeKey(sb, 'test');
    const a = await signIn(sb.baseUrl, keyA);
    const b = await signIn(sb.baseUrl, keyB);
    const one = await admin(sb, 'POST', '/sessions/end', { key_id: keyA.key_id });
    expect(one.status).toBe(200);
    expect401(await ping(a));
    expect((await ping(b)).status).toBe(200);
    const all = await admin(sb, 'POST', '/sessions/end', {});
    expect(all.status).toBe(200);
    expect401(await ping(b));
    expect((await ping(await signIn(sb.baseUrl, keyA))).status).toBe(200);
  });

  it('lists the sessions it issued by the hash of their token, never the token, with their key and state', async () => {
    const key = await makeKey(sb, 'live');
    const session = await signIn(sb.baseUrl, key);
    const hash = createHash('sha256').update(session.token).digest('base64');
    const listed = async () => ((await admin(sb, 'GET', '/sessions')).body.data as Reply['body'][]).filter((s) => s.key_id === key.key_id);
    const [entry] = await listed();
    expect(entry).toEqual({ key_id: key.key_id, business_id: 1, token_sha256: hash, expires_at: entry.expires_at, ended: false });
    expect(Math.abs(Date.parse(entry.expires_at) - Date.parse(session.signIn.expires_at))).toBeLessThan(1000);
    expect(JSON.stringify(await listed())).not.toContain(session.token.slice(6));
    await admin(sb, 'POST', '/sessions/end', { key_id: key.key_id });
    expect((await listed()).map((s) => s.ended)).toEqual([true]);
  });

  it('regenerates: a new key ID and secret; the old key and all its sessions stop at once', async () => {
    const old = await makeKey(sb, 'live', ['customers.read', 'customers.write']);
    const session = await signIn(sb.baseUrl, old);
    const reply = await admin(sb, 'POST', `/keys/${old.key_id}/regenerate`);
    expect(reply.status).toBe(200);
    const fresh: KeyPair = { key_id: reply.body.key_id, secret: reply.body.secret };
    expect(fresh.key_id).toMatch(/^svck_live_[A-Za-z0-9_-]{24}$/);
    expect(fresh.secret).toMatch(/^svc_live_[A-Za-z0-9_-]{40}$/);
    expect(fresh.key_id).not.toBe(old.key_id);
    expect401(await ping(session));
    expect401(await signInRaw(sb.baseUrl, old));
    expect401(await signInRaw(sb.baseUrl, { key_id: fresh.key_id, secret: old.secret }));
    const next = await signIn(sb.baseUrl, fresh);
    expect([...next.signIn.scopes].sort()).toEqual(['customers.read', 'customers.write']);
    expect((await get(next, '/api/v1/customers?per_page=1')).status).toBe(200);
    expect((await admin(sb, 'POST', `/keys/${old.key_id}/regenerate`)).status).toBe(404);
  });

  it('suspends: sessions end (401), sign-in is 403; resumed, sign-in works again', async () => {
    const key = await makeKey(sb, 'test');
    const session = await signIn(sb.baseUrl, key);
    expect((await admin(sb, 'POST', `/keys/${key.key_id}/suspend`)).status).toBe(200);
    expect401(await ping(session));
    const refused = await signInRaw(sb.baseUrl, key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/suspended/i);
    expect(refused.body).not.toHaveProperty('required_scope');
    expect((await admin(sb, 'POST', `/keys/${key.key_id}/resume`)).status).toBe(200);
    const again = await signIn(sb.baseUrl, key);
    expect((await ping(again)).status).toBe(200);
  });

  it('revokes: sessions end and the key can no longer sign in', async () => {
    const key = await makeKey(sb, 'live');
    const session = await signIn(sb.baseUrl, key);
    expect((await admin(sb, 'DELETE', `/keys/${key.key_id}`)).status).toBe(200);
    expect401(await ping(session));
    expect401(await signInRaw(sb.baseUrl, key));
    expect((await admin(sb, 'POST', `/keys/${key.key_id}/resume`)).status).toBe(404);
  });
});
