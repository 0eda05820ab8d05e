// HTTP mode as a load balancer and an operator see it: refusals of malformed requests are JSON-RPC errors,
// a DELETE that says application/json with no body still ends its session, /healthz and /readyz answer
// without the token and give away no secret, and SIGTERM drains: new requests get 503, a call taken in
// finishes (its body still coming when the signal came), an open stream ends with a retry hint, the mirror's
// sync lease is released, and the exit is 0.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { heldPost } from './support/held-request.js';
import { type HttpServer, spawnHttpProcess } from './support/server.js';

const TOKEN = 'operable-token-0123456789';
const WEBHOOK_SECRET = `whsec_${'o'.repeat(32)}`;
const VERSION = '2025-11-25';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...AUTH };

let sb: TestSandbox;
let server: HttpServer;
let mirrorFile: string;
let origin: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  mirrorFile = join(mkdtempSync(join(tmpdir(), 'operable-')), 'books.db');
  const env = {
    SVC_BASE_URL: sb.baseUrl,
    SVC_KEY_ID: sb.keys.live.key_id,
    SVC_SECRET: sb.keys.live.secret,
    SVC_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SVC_POLL_SECONDS: '60',
  };
  server = await spawnHttpProcess(['--http-token', TOKEN, '--mirror', mirrorFile, '--drain-timeout', '5'], env);
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server?.close();
  await sb?.close();
});

async function openSession(): Promise<Record<string, string>> {
  const init = await fetch(server.url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'operable', version: '1' } },
    }),
  });
  expect(init.status).toBe(200);
  await init.text();
  return { ...JSON_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id') as string, 'mcp-protocol-version': VERSION };
}

const ping = async (headers: Record<string, string>): Promise<number> => {
  const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
  await res.text();
  return res.status;
};

describe('refusals as JSON-RPC errors', () => {
  it('a DELETE with Content-Type: application/json and no body ends its session', async () => {
    const session = await openSession();
    const res = await fetch(server.url, { method: 'DELETE', headers: session });
    expect(res.status).toBe(200);
    expect(await ping(session)).toBe(404);
  });

  it.each([
    ['malformed JSON', '{"jsonrpc":"2.0",', -32700],
    ['an empty POST', '', -32700],
    ['JSON nested 100 deep', `${'['.repeat(100)}${']'.repeat(100)}`, -32600],
  ])('%s gets 400 with a JSON-RPC error (%s)', async (_name, body, code) => {
    const res = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    const answer = await res.json();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    expect(typeof answer.error.message).toBe('string');
  });
});

describe('health', () => {
  it('/healthz says alive without the token', async () => {
    const res = await fetch(`${origin}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'alive' });
  });

  it("/readyz says the mirror's store is reachable and who holds the sync lease, with no secret in it", async () => {
    // The mirror opens once the server has answered and gone quiet; until then it says so.
    let body: any;
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${origin}/readyz`);
      body = await res.json();
      if (body.mirror?.syncLease === true) {
        expect(res.status).toBe(200);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(body).toMatchObject({ status: 'ready', mirror: { store: 'reachable', syncLease: true } });
    const text = JSON.stringify(body);
    for (const secret of [TOKEN, WEBHOOK_SECRET, sb.keys.live.secret, mirrorFile]) expect(text).not.toContain(secret);
  });

  it('/readyz says not ready (503) when the Postgres mirror it was given could not be used and its books are in memory alone', async () => {
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '60' };
    // Nothing listens on port 9 of loopback: the database cannot be reached, at once.
    const alone = await spawnHttpProcess(['--mirror', 'postgres://mirror:a-db-password@127.0.0.1:9/books'], env);
    try {
      const readyz = new URL('/readyz', alone.url).toString();
      let res = await fetch(readyz);
      let body: any = await res.json();
      for (let i = 0; i < 100 && body.mirror?.state !== 'open'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        res = await fetch(readyz);
        body = await res.json();
      }
      expect(res.status).toBe(503);
      expect(body.mirror).toEqual({ state: 'open', store: 'in memory: the Postgres database could not be used at start' });
      expect(JSON.stringify(body)).not.toContain('a-db-password');
    } finally {
      await alone.close();
    }
  });
});

describe('SIGTERM', () => {
  it('drains: 503 to new requests, the call in flight answered, the stream ended with a retry hint, lease released, exit 0', async () => {
    const session = await openSession();
    const stream = await fetch(server.url, { headers: { ...session, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const streamText = stream.text();
    await sb.faults(1, ['latency'], 300);
    // The call is taken in before SIGTERM (its head read, its body still to come): it is answered all the same.
    const call = await heldPost(
      new URL(server.url),
      session,
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_customers', arguments: { per_page: 1 } } }),
    );
    const exit = server.terminate();
    let refused: Response | null = null;
    for (let i = 0; i < 50 && refused === null; i++) {
      const res = await fetch(`${origin}/readyz`);
      if (res.status === 503) refused = res;
      else await new Promise((r) => setTimeout(r, 10));
    }
    expect(refused?.status).toBe(503);
    const late = await fetch(server.url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }),
    });
    expect(late.status).toBe(503);
    expect(Number(late.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await late.json()).error.code).toBe(-32000);

    const answered = await call.finish();
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('"result"');
    expect(await streamText).toMatch(/^retry: \d+$/m);
    expect(await exit).toBe(0);
    await sb.clearFaults();

    const raw = new Database(mirrorFile, { readonly: true });
    try {
      expect(raw.prepare("SELECT holder FROM lease WHERE name = 'sync'").get()).toBeUndefined();
    } finally {
      raw.close();
    }
  });
});
