// Contract: what 2025-era sessions and their GET streams may hold. A session with no request in flight and no
// open stream ends after the idle timeout (the SDK's client leaves without DELETE), so a new `initialize`
// is refused with 503 and Retry-After only while the cap is full of sessions in use or quiet for less than
// that. One client address holds at most its share of sessions and of streams (429 past it), whatever
// the others do; and a GET stream ends after its lifetime with a retry hint. The idle timeout runs on an
// injected clock.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PerClient } from '../../src/http/per-client.js';
import { type LegacySessionsServer, startLegacySessionsServer } from './legacy-sessions-server.js';

const IDLE_MS = 60_000;
const VERSION = '2025-11-25';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** A second client: the same machine, another loopback address. */
const other = new Agent({ localAddress: '127.0.0.2' });

let clock = 1_000_000;
let server: LegacySessionsServer;

afterAll(async () => {
  await other.close();
});

interface Opened {
  status: number;
  id: string;
  retryAfter: string | null;
  code: number | undefined;
}

async function initialize(url: string, via?: Agent): Promise<Opened> {
  const res = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'cap', version: '1' } },
    }),
    ...(via ? { dispatcher: via } : {}),
  } as RequestInit);
  const text = await res.text();
  const code = res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text).error?.code : undefined;
  return { status: res.status, id: res.headers.get('mcp-session-id') ?? '', retryAfter: res.headers.get('retry-after'), code };
}

const sessionHeaders = (id: string) => ({ ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': VERSION });

async function ping(url: string, id: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(id),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await res.text();
  return res.status;
}

function listen(url: string, id: string, via?: Agent): Promise<Response> {
  return fetch(url, {
    headers: { ...sessionHeaders(id), accept: 'text/event-stream' },
    ...(via ? { dispatcher: via } : {}),
  } as RequestInit);
}

describe('caps and the idle timeout', () => {
  beforeAll(async () => {
    server = await startLegacySessionsServer({
      maxSessions: 4,
      maxSessionsPerClient: 3,
      idleMs: IDLE_MS,
      streams: new PerClient(1),
      now: () => clock,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a client past its share of sessions gets 429; the cap full of sessions in use, 503; idle ones then end and make room', async () => {
    const { url } = server;
    const mine = [await initialize(url), await initialize(url), await initialize(url)];
    expect(mine.map((m) => m.status)).toEqual([200, 200, 200]);
    const fourth = await initialize(url);
    expect([fourth.status, fourth.code]).toEqual([429, -32000]);
    expect(Number(fourth.retryAfter)).toBeGreaterThanOrEqual(1);
    // The other client still gets in: one client's sessions do not starve it.
    const theirs = await initialize(url, other);
    expect(theirs.status).toBe(200);
    const full = await initialize(url, other);
    expect([full.status, full.code]).toEqual([503, -32000]);
    expect(Number(full.retryAfter)).toBe(IDLE_MS / 1000);

    // The first listens on its GET stream: in use however long it is quiet.
    const stream = await listen(url, (mine[0] as Opened).id);
    expect(stream.status).toBe(200);
    clock += IDLE_MS / 2;
    expect(await ping(url, (mine[1] as Opened).id)).toBe(200);
    clock += IDLE_MS / 2;
    // The two left without DELETE ended; the one pinged half a timeout ago and the listener stay.
    expect((await initialize(url, other)).status).toBe(200);
    expect(await ping(url, (mine[2] as Opened).id)).toBe(404);
    expect(await ping(url, theirs.id)).toBe(404);
    expect(await ping(url, (mine[1] as Opened).id)).toBe(200);
    expect(await ping(url, (mine[0] as Opened).id)).toBe(200);
    await stream.body?.cancel();
  });

  it("a client past its share of streams gets 429; another client's stream is taken", async () => {
    const { url } = server;
    clock += IDLE_MS * 2;
    const [a, b] = [await initialize(url), await initialize(url)];
    const c = await initialize(url, other);
    const first = await listen(url, a.id);
    expect(first.status).toBe(200);
    const second = await listen(url, b.id);
    expect(second.status).toBe(429);
    expect((await second.json()).error.code).toBe(-32000);
    const theirs = await listen(url, c.id, other);
    expect(theirs.status).toBe(200);
    await first.body?.cancel();
    await theirs.body?.cancel();
  });
});

describe('the lifetime of a stream', () => {
  let short: LegacySessionsServer;
  beforeAll(async () => {
    short = await startLegacySessionsServer({ maxSessions: 4, idleMs: IDLE_MS, streamLifetimeMs: 50, retryMs: 1_500 });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('ends a GET stream after it with a retry hint; the session stays, and the client may listen again', async () => {
    const session = await initialize(short.url);
    const stream = await listen(short.url, session.id);
    expect(stream.status).toBe(200);
    expect(await stream.text()).toMatch(/^retry: 1500$/m);
    expect(await ping(short.url, session.id)).toBe(200);
    const again = await listen(short.url, session.id);
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });
});
