// Contract: the sessions 2025-era HTTP clients get when they open with `initialize`. A session whose client
// keeps its GET stream open (listening for its subscriptions) outlives the idle limit however quiet the
// books are; one with no stream and no request is closed after it, and its id is then refused with 404. The
// idle limit runs on an injected clock.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventBus } from '../../src/events/bus.js';
import type { LegacySessions } from '../../src/transports/legacy-sessions.js';
import { compiledOnce } from '../support/schema-validators.js';
import { type LegacySessionsServer, startLegacySessionsServer } from './legacy-sessions-server.js';

const IDLE_MS = 60_000;
let clock = 1_000_000;

let server: LegacySessionsServer;
let bus: EventBus;
let sessions: LegacySessions;
let url: string;

beforeAll(async () => {
  server = await startLegacySessionsServer({ maxSessions: 10, idleMs: IDLE_MS, now: () => clock });
  ({ bus, sessions, url } = server);
});

afterAll(async () => {
  await server?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Moves the clock on, then sends a request of no session, which has the server look for idle sessions. */
async function passTime(ms: number): Promise<void> {
  clock += ms;
  const res = await fetch(url, { method: 'POST', headers: { 'mcp-session-id': 'none', 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(404);
  await res.body?.cancel();
}

it('a client listening on its GET stream stays past the idle limit and still hears its subscription', async () => {
  const client = new Client({ name: 'listener', version: '1.0.0' }, { jsonSchemaValidator: compiledOnce });
  const heard: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
  // The SDK opens its GET stream in the background after connecting: the clock moves once the stream is open.
  let streamOpen: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (streamOpen = resolve));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET' && res.status === 200) streamOpen();
      return res;
    },
  });
  await client.connect(transport);
  await client.subscribeResource({ uri: 'invoicing://invoices/1' });
  await opened;
  await passTime(IDLE_MS * 4);
  expect(sessions.size).toBe(1);
  bus.publish({
    id: 'evt_idle_test',
    kind: 'invoice.paid',
    createdAt: new Date().toISOString(),
    source: 'webhook',
    record: { kind: 'invoices', id: 1 },
    related: [],
    data: { id: 1, updated_at: new Date().toISOString() },
  });
  for (let i = 0; i < 50 && heard.length === 0; i++) await sleep(20);
  expect(heard).toEqual(['invoicing://invoices/1']);
  await transport.terminateSession();
  await client.close();
  expect(sessions.size).toBe(0);
});

it('a session with no stream and no request is closed after the idle limit; its id then gets 404', async () => {
  const init = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
    }),
  });
  expect(init.status).toBe(200);
  await init.body?.cancel();
  const sessionId = init.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  expect(sessions.size).toBe(1);
  await passTime(IDLE_MS * 4);
  expect(sessions.size).toBe(0);
  const late = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId as string,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  expect(late.status).toBe(404);
  expect(await late.text()).toContain('Session not found');
});
