// Contract: the cap on 2025-era sessions makes room only by closing a session nobody is using (no open
// stream, no request for a while), least recently used first; when every session is in use, a new
// `initialize` gets 503 with Retry-After and nothing is closed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LegacySessionsServer, startLegacySessionsServer } from './legacy-sessions-server.js';

// Long enough that the calls before the refusal fit in it on a loaded machine.
const RECENT_MS = 3_000;

let server: LegacySessionsServer;
let url: string;

beforeAll(async () => {
  server = await startLegacySessionsServer({ maxSessions: 3, idleMs: 60_000, recentMs: RECENT_MS });
  url = server.url;
});

afterAll(async () => {
  await server?.close();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function initialize(): Promise<{ status: number; id: string | null; retryAfter: string | null }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cap', version: '1' } },
    }),
  });
  await res.text();
  return { status: res.status, id: res.headers.get('mcp-session-id'), retryAfter: res.headers.get('retry-after') };
}

async function ping(id: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await res.text();
  return res.status;
}

it('refuses past the cap while every session is in use, then closes only the quiet one to make room', async () => {
  const [a, b, streaming] = [await initialize(), await initialize(), await initialize()];
  expect([a.status, b.status, streaming.status]).toEqual([200, 200, 200]);
  // The third listens on its GET stream: in use however quiet it is.
  const stream = new AbortController();
  const listening = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': streaming.id as string, 'mcp-protocol-version': '2025-11-25' },
    signal: stream.signal,
  });
  expect(listening.status).toBe(200);

  const refused = await initialize();
  expect(refused.status).toBe(503);
  expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(server.sessions.size).toBe(3);

  await sleep(RECENT_MS + 100);
  expect(await ping(b.id as string)).toBe(200);
  const admitted = await initialize();
  expect(admitted.status).toBe(200);
  // `a` was the quiet one; `b` had just been used and the third is streaming.
  expect(await ping(a.id as string)).toBe(404);
  expect(await ping(b.id as string)).toBe(200);
  expect(await ping(streaming.id as string)).toBe(200);
  stream.abort();
});
