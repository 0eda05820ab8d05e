// Contract: the HTTP rules of a 2025-era session, as a client sees them on the wire. Each refusal is the
// status and JSON-RPC error the Streamable HTTP transport defines; a POST of requests is answered on one SSE
// stream that ends with its last response; notifications get 202; a session has one GET stream; DELETE ends
// it. A client that leaves in the middle of a call costs the session nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LegacySessionsServer, startLegacySessionsServer } from './legacy-sessions-server.js';

const ACCEPT = 'application/json, text/event-stream';
const VERSION = '2025-11-25';
const KEEP_ALIVE_MS = 150;

let server: LegacySessionsServer;
let url: string;

beforeAll(async () => {
  server = await startLegacySessionsServer({ maxSessions: 10, idleMs: 60_000, keepAliveMs: KEEP_ALIVE_MS });
  ({ url } = server);
});

afterAll(async () => {
  await server?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const initialize = (id = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'wire', version: '1.0.0' } },
});

/** Opens a session the way a client does: initialize, then initialized. Returns its headers. */
async function open(): Promise<Record<string, string>> {
  const init = await post(initialize());
  expect(init.status).toBe(200);
  const sid = init.headers.get('mcp-session-id');
  expect(sid).toMatch(/^[0-9a-f-]{36}$/);
  const headers = { 'mcp-session-id': sid as string, 'mcp-protocol-version': VERSION };
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

/** The JSON-RPC messages of an SSE body, in order. */
const events = (text: string): { id?: unknown; result?: any; error?: any; method?: string }[] =>
  text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)));

const errorOf = (answer: Answer): { code: number; message: string } => JSON.parse(answer.text).error;

it('answers initialize on an SSE stream with the session id, and a call in the session with its result', async () => {
  const init = await post(initialize(7));
  expect(init.headers.get('content-type')).toBe('text/event-stream');
  expect(init.headers.get('cache-control')).toBe('no-cache, no-transform');
  const [answer] = events(init.text);
  expect(answer?.id).toBe(7);
  expect(answer?.result.protocolVersion).toBe(VERSION);
  const headers = { 'mcp-session-id': init.headers.get('mcp-session-id') as string, 'mcp-protocol-version': VERSION };
  const call = await post(
    { jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'get_invoice', arguments: { id: 3 } } },
    headers,
  );
  expect(call.status).toBe(200);
  expect(call.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
  const [result] = events(call.text);
  expect(result?.id).toBe('call-1');
  expect(result?.result.structuredContent.id).toBe(3);
});

it('answers a batch of two requests on one stream, each by its id, and ends it after the last', async () => {
  const headers = await open();
  const answer = await post(
    [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ],
    headers,
  );
  expect(answer.status).toBe(200);
  const got = events(answer.text);
  expect(got.map((m) => m.id).sort()).toEqual([1, 2]);
  expect(got.find((m) => m.id === 2)?.result.tools.length).toBeGreaterThan(5);
});

it('takes notifications and responses with 202 and no body', async () => {
  const headers = await open();
  const answer = await post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, headers);
  expect(answer).toMatchObject({ status: 202, text: '' });
});

it('refuses what breaks the transport rules, each with its status and a message saying what to fix', async () => {
  const headers = await open();
  const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };

  const notAcceptable = await post(ping, { ...headers, accept: 'application/json' });
  expect(notAcceptable.status).toBe(406);
  expect(errorOf(notAcceptable)).toEqual({
    code: -32000,
    message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
  });

  const plain = await post(ping, { ...headers, 'content-type': 'text/plain' });
  expect(plain.status).toBe(415);
  expect(errorOf(plain).message).toMatch(/Content-Type must be application\/json/);

  const notJsonRpc = await post({ jsonrpc: '2.0', id: 1 }, headers);
  expect(notJsonRpc.status).toBe(400);
  expect(errorOf(notJsonRpc)).toEqual({ code: -32700, message: 'Parse error: Invalid JSON-RPC message' });

  const tooMany = await post(
    Array.from({ length: 101 }, (_, i) => ({ ...ping, id: i })),
    headers,
  );
  expect(tooMany.status).toBe(400);
  expect(errorOf(tooMany)).toEqual({ code: -32600, message: 'Invalid Request: Batch must not exceed 100 messages' });

  const again = await post(initialize(), headers);
  expect(again.status).toBe(400);
  expect(errorOf(again)).toEqual({ code: -32600, message: 'Invalid Request: Server already initialized' });

  const future = await post(ping, { ...headers, 'mcp-protocol-version': '1999-01-01' });
  expect(future.status).toBe(400);
  expect(errorOf(future).message).toMatch(/^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: .*2025-11-25/);

  const unknown = await post(ping, { ...headers, 'mcp-session-id': '00000000-0000-0000-0000-000000000000' });
  expect(unknown.status).toBe(404);
  expect(errorOf(unknown).code).toBe(-32001);

  const put = await fetch(url, { method: 'PUT', headers: { ...headers, accept: ACCEPT } });
  expect(put.status).toBe(405);
  expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  await put.text();

  // None of that harmed the session.
  const still = await post(ping, headers);
  expect(events(still.text)[0]).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
});

it('keeps one GET stream per session: a second is refused with 409 while the first is open', async () => {
  const headers = await open();
  const listening = new AbortController();
  const first = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, signal: listening.signal });
  expect(first.status).toBe(200);
  expect(first.headers.get('content-type')).toBe('text/event-stream');
  const second = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
  expect(second.status).toBe(409);
  expect((await second.json()).error.message).toBe('Conflict: Only one SSE stream is allowed per session');
  const wrongAccept = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'application/json' } });
  expect(wrongAccept.status).toBe(406);
  await wrongAccept.text();
  // A quiet stream gets a keep-alive comment, so that no proxy between takes it for dead.
  const reader = first.body!.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toBe(': keepalive\n\n');
  listening.abort();
  await reader.cancel().catch(() => undefined);
});

it('ends a session on DELETE: 200, then its id is not found', async () => {
  const headers = await open();
  const before = server.sessions.size;
  const del = await fetch(url, { method: 'DELETE', headers });
  expect(del.status).toBe(200);
  await del.text();
  expect(server.sessions.size).toBe(before - 1);
  const after = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, headers);
  expect(after.status).toBe(404);
});

it('a client that leaves during a call costs the session nothing: its next call is answered', async () => {
  const headers = await open();
  const leaving = new AbortController();
  const call = fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_invoices', arguments: { per_page: 100 } } }),
    signal: leaving.signal,
  });
  leaving.abort();
  await expect(call).rejects.toThrow();
  const next = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_invoice', arguments: { id: 5 } } }, headers);
  expect(next.status).toBe(200);
  expect(events(next.text)[0]?.result.structuredContent.id).toBe(5);
});
