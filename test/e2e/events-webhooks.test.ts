// Webhooks to subscriptions, end to end: the sandbox sends its signed webhooks to the server (its own
// listener in stdio mode, /webhooks beside /mcp in HTTP mode), and clients of both eras, subscribed to
// the records and feeds, hear of each change within a second and read the new state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { signPayload } from '../../src/events/signature.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BusinessOps, businessOps } from './support/business-ops.js';
import { watchBusinessDay } from './support/event-scenario.js';
import { legacyWatcher, modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { freePort, type HttpServer, spawnHttpServer, stdioCommand } from './support/server.js';

let sb: TestSandbox;
let api: ApiClient;
let ops: BusinessOps;

beforeAll(async () => {
  sb = await startTestSandbox({ webhookBackoffMs: 20 });
  api = makeClient(sb, sb.keys.live, captureLogs('warn'));
  ops = businessOps(sb, api);
});

afterAll(async () => {
  await api?.close();
  await sb?.close();
});

/** Registers http://127.0.0.1:PORT/webhooks with the sandbox; the server started on PORT gets its secret. */
async function webhookEndpoint(): Promise<{ port: number; env: Record<string, string> }> {
  const port = await freePort();
  const reply = await sb.admin('POST', '/webhooks', { url: `http://127.0.0.1:${port}/webhooks` });
  expect(reply.status).toBe(201);
  const env = {
    SVC_BASE_URL: sb.baseUrl,
    SVC_KEY_ID: sb.keys.live.key_id,
    SVC_SECRET: sb.keys.live.secret,
    SVC_WEBHOOK_SECRET: reply.body.secret as string,
    SVC_POLL_SECONDS: '0',
  };
  return { port, env };
}

describe.each([
  ['the v2 client on 2026-07-28', modernWatcher, '2026-07-28'],
  ['the v1 client on 2025-11-25', legacyWatcher, undefined],
] as const)('over stdio, %s', (_name, open, version) => {
  let watcher: Watcher;
  afterAll(async () => watcher?.close());

  it('hears of every change within a second of the webhook, and reads the new state', async () => {
    const { port, env } = await webhookEndpoint();
    watcher = await open({ stdio: stdioCommand(['--webhook-port', String(port)], env) });
    if (version) expect(watcher.protocolVersion).toBe(version);
    await watchBusinessDay(watcher, ops, 1000);
  });
});

describe('over HTTP, one server', () => {
  let server: HttpServer;
  const watchers: Watcher[] = [];
  beforeAll(async () => {
    const { port, env } = await webhookEndpoint();
    server = await spawnHttpServer(['--port', String(port)], env);
  });
  afterAll(async () => {
    for (const w of watchers) await w.close().catch(() => undefined);
    await server?.close();
  });

  it('the v2 client on 2026-07-28 hears of every change within a second', async () => {
    const w = await modernWatcher({ http: server.url });
    watchers.push(w);
    expect(w.protocolVersion).toBe('2026-07-28');
    await watchBusinessDay(w, ops, 1000);
  });

  it('the v1 client on 2025-11-25 hears of every change within a second (in its session)', async () => {
    const w = await legacyWatcher({ http: server.url });
    watchers.push(w);
    expect(w.protocolVersion).toBe('2025-11-25');
    await watchBusinessDay(w, ops, 1000);
  });
});

describe('over HTTP with a bearer token', () => {
  it('guards /mcp only: /webhooks answers by the signature (204 signed, 400 forged), never 401', async () => {
    const { port, env } = await webhookEndpoint();
    const token = 'a-token-for-the-webhook-test';
    const server = await spawnHttpServer(['--port', String(port), '--http-token', token], env);
    try {
      const hook = `http://127.0.0.1:${port}/webhooks`;
      expect((await fetch(server.url, { method: 'POST', body: '{}' })).status).toBe(401);
      const body = JSON.stringify({
        id: 'evt_token_test',
        event: 'quote.accepted',
        created_at: new Date().toISOString(),
        data: { quote: { id: 1 } },
      });
      const now = Math.floor(Date.now() / 1000);
      const post = (signature: string) =>
        fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body });
      expect((await post(signPayload('whsec_not_the_secret', now, body))).status).toBe(400);
      expect((await post(signPayload(env.SVC_WEBHOOK_SECRET as string, now, body))).status).toBe(204);
      expect(server.stderr()).not.toContain(env.SVC_WEBHOOK_SECRET);
      expect(server.stderr()).not.toContain(token);
    } finally {
      await server.close();
    }
  });
});
