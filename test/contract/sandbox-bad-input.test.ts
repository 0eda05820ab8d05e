// Contract: bad input never hurts the sandbox (issue 2, "Bad input never hurts it"): malformed JSON (400),
// a wrong content type (415), a body over 1 MB (413), unknown paths (404), wrong methods (405) and ids that
// are not integers (404), each a JSON error with a message. Afterwards it still answers and the books are
// as they were.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  authHeaders,
  get,
  type Json,
  listAll,
  post,
  type Reply,
  type SandboxHandle,
  type Session,
  send,
  signIn,
  start,
} from './sandbox-http.js';
import { RESOURCES } from './sandbox-records.js';

let sb: SandboxHandle;
let live: Session;
let test: Session;
/** Every record of every list, in both modes, before any bad input. */
const before: Record<string, Json[]> = {};

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  live = await signIn(sb.baseUrl, sb.keys.live);
  test = await signIn(sb.baseUrl, sb.keys.test);
  for (const r of RESOURCES) {
    before[`live ${r}`] = await listAll(live, `/api/v1/${r}`);
    before[`test ${r}`] = await listAll(test, `/api/v1/${r}`);
  }
});

afterAll(async () => {
  await sb?.close();
});

/** A JSON error with a message; under /api it carries the service's headers like every response there. */
function expectJsonError(reply: Reply, status: number, api = true): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof reply.body?.message).toBe('string');
  expect(reply.body.message.length).toBeGreaterThan(0);
  if (api) {
    expect(['live', 'test']).toContain(reply.headers['x-service-mode']);
    expect(reply.headers).toHaveProperty('x-service-session-expires');
  }
}

/** A POST with a raw body and the session's headers. */
function rawPost(session: Session, path: string, raw: string | Buffer, contentType?: string): Promise<Reply> {
  const headers = authHeaders(session, { 'idempotency-key': randomUUID() });
  if (contentType) headers['content-type'] = contentType;
  return send('POST', `${sb.baseUrl}${path}`, { headers, raw });
}

describe('bad input', () => {
  it('malformed JSON: 400 with a message', async () => {
    for (const raw of ['{"name": ', '{"name": "x",}', "{'name': 'x'}", 'name=x', '{"items": [1, 2}', '\u0000']) {
      for (const path of ['/api/v1/customers', '/api/v1/invoices']) {
        expectJsonError(await rawPost(live, path, raw, 'application/json'), 400);
      }
    }
    expectJsonError(
      await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { raw: '{"key_id": ', headers: { 'content-type': 'application/json' } }),
      400,
    );
    expectJsonError(await rawPost(live, '/api/v1/customers', '', 'application/json'), 400);
    const adminReply = await send('POST', `${sb.baseUrl}/_sandbox/clock`, {
      raw: '{"advance_seconds": ',
      headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
    });
    expectJsonError(adminReply, 400, false);
  });

  it('a body that tries to poison the prototype: refused, and nothing polluted', async () => {
    for (const raw of [
      '{"name": "Proto", "__proto__": {"polluted": true}}',
      '{"name": "Proto", "constructor": {"prototype": {"polluted": true}}}',
    ]) {
      const reply = await rawPost(live, '/api/v1/customers', raw, 'application/json');
      expect([400, 422]).toContain(reply.status);
      expect(typeof reply.body.message).toBe('string');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('a wrong content type: 415 with a message', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      expectJsonError(await rawPost(live, '/api/v1/customers', '{"name": "Typed"}', type), 415);
    }
    expectJsonError(await rawPost(live, '/api/v1/invoices', '{"customer_id": 1}', 'text/html'), 415);
  });

  it('a body over 1 MB: 413 with a message; just under is read and judged', async () => {
    const big = JSON.stringify({ name: 'Big', notes: 'x'.repeat(1024 * 1024) });
    expectJsonError(await rawPost(live, '/api/v1/customers', big, 'application/json'), 413);
    expectJsonError(
      await send('POST', `${sb.baseUrl}/api/v1/auth/token`, { raw: big, headers: { 'content-type': 'application/json' } }),
      413,
    );
    const under = JSON.stringify({ name: 'Under', notes: 'x'.repeat(1000 * 1000) });
    const judged = await rawPost(live, '/api/v1/customers', under, 'application/json');
    expect(judged.status).toBe(422);
    expect(Object.keys(judged.body.errors)).toEqual(['notes']);
  });

  it('an unknown path: 404 with a message', async () => {
    for (const path of ['/api/v1/nothing', '/api/v2/customers', '/api/v1/customers/1/extra', '/api/v1']) {
      expectJsonError(await get(live, path), 404);
    }
    for (const path of ['/nothing', '/']) expectJsonError(await get(live, path), 404, false);
    expectJsonError(await send('POST', `${sb.baseUrl}/api/v1/refunds`, { json: {} }), 404);
  });

  it('a wrong method: 405 with a message and Allow', async () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', '/api/v1/customers', ['GET', 'POST']],
      ['PUT', '/api/v1/invoices/1', ['GET']],
      ['PATCH', '/api/v1/customers/1', ['GET']],
      ['POST', '/api/v1/quotes', ['GET']],
      ['POST', '/api/v1/payments/1', ['GET']],
      ['DELETE', '/api/v1/products', ['GET']],
      ['POST', '/api/ping', ['GET']],
      ['GET', '/api/v1/auth/token', ['POST', 'DELETE']],
    ];
    for (const [method, path, allowed] of cases) {
      const reply = await send(method, `${sb.baseUrl}${path}`, { headers: authHeaders(live) });
      expectJsonError(reply, 405);
      const allow = (reply.headers.allow ?? '').split(',').map((m) => m.trim());
      for (const m of allowed) expect(allow, `${method} ${path}`).toContain(m);
      expect(allow).not.toContain(method);
    }
  });

  it('an id that is not an integer: 404 with a message', async () => {
    for (const id of ['abc', '1.0', '-7', '1e3', '%27%20OR%201=1', 'null', '12abc']) {
      expectJsonError(await get(live, `/api/v1/invoices/${id}`), 404);
    }
  });

  it('a wrong JSON type for the whole body: 422', async () => {
    for (const raw of ['[]', '"text"', '42', 'null', 'true']) {
      const reply = await rawPost(test, '/api/v1/customers', raw, 'application/json');
      expect(reply.status, raw).toBe(422);
      expect(typeof reply.body.message).toBe('string');
    }
  });
});

describe('after all of it', () => {
  it('still answers correctly, with the books unchanged', async () => {
    const ping = await get(live, '/api/ping');
    expect(ping.status).toBe(200);
    expect(ping.body.ok).toBe(true);
    for (const r of RESOURCES) {
      expect(await listAll(live, `/api/v1/${r}`), `live ${r}`).toEqual(before[`live ${r}`]);
      expect(await listAll(test, `/api/v1/${r}`), `test ${r}`).toEqual(before[`test ${r}`]);
    }
  });

  it('takes a good create with the next code, as if nothing had happened', async () => {
    const codes = before['live customers']!.map((c) => Number(c.code.split('-')[1]));
    const reply = await post(live, '/api/v1/customers', { name: 'After The Storm' }, { 'idempotency-key': randomUUID() });
    expect(reply.status).toBe(201);
    expect(reply.body.data.code).toBe(`CUS-${String(Math.max(...codes) + 1).padStart(5, '0')}`);
    const logs = await admin(sb, 'GET', '/logs?kind=requests');
    const statuses = new Set(logs.body.data.map((e: Json) => e.status));
    for (const status of [400, 404, 405, 413, 415, 422]) expect(statuses.has(status), String(status)).toBe(true);
  });
});
