// The session cap against a flood: 100 clients listen for resources/updated (50 in 2025-era sessions on
// their GET streams, 50 on 2026-07-28 subscription streams), then as many raw `initialize` calls as the cap
// arrive. The cap (--max-sessions 250 here, a quarter of the default, which test/unit/http-guards.test.ts
// holds) refuses the ones past it with 503 and Retry-After instead of closing sessions in use, and after the
// flood, and after the short request timeout has passed, every listener still hears the next event.
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signPayload } from '../../src/events/signature.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { legacyWatcher, modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { freePort, type HttpServer, spawnHttpServer } from './support/server.js';

const LISTENERS_PER_ERA = 50;
const CAP = 250;
const URI = 'invoicing://quotes/1';

let sb: TestSandbox;
let server: HttpServer;
let secret: string;
let hook: string;
const watchers: Watcher[] = [];

beforeAll(async () => {
  sb = await startTestSandbox();
  const port = await freePort();
  hook = `http://127.0.0.1:${port}/webhooks`;
  const reply = await sb.admin('POST', '/webhooks', { url: hook });
  secret = reply.body.secret as string;
  const env = {
    SVC_BASE_URL: sb.baseUrl,
    SVC_KEY_ID: sb.keys.live.key_id,
    SVC_SECRET: sb.keys.live.secret,
    SVC_WEBHOOK_SECRET: secret,
    SVC_POLL_SECONDS: '0',
  };
  // Every client here is on one address: its share of sessions is lifted to the whole cap. No mirror: the
  // webhook's event goes from the bus to the listeners all the same, and the server does not read the main
  // business's books in full at start (the webhook secret would have it do so) while the flood arrives.
  const args = ['--port', String(port), '--headers-timeout', '2', '--request-timeout', '3', '--idle-timeout', '2', '--mirror', 'off'];
  server = await spawnHttpServer([...args, '--max-sessions', String(CAP), '--max-sessions-per-client', String(CAP)], env);
}, 30_000);

afterAll(async () => {
  await Promise.allSettled(watchers.map((w) => w.close()));
  await server?.close();
  await sb?.close();
});

async function openListeners(open: typeof legacyWatcher): Promise<void> {
  for (let i = 0; i < LISTENERS_PER_ERA; i += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, () => open({ http: server.url })));
    await Promise.all(batch.map((w) => w.subscribe([URI])));
    watchers.push(...batch);
  }
}

/** A raw `initialize` through undici's request (the same exchange as fetch, at a fraction of its CPU). */
async function initialize(n: number): Promise<{ status: number; retryAfter: string | null }> {
  const res = await request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `flood-${n}`, version: '1' } },
    }),
  });
  await res.body.text();
  const retryAfter = res.headers['retry-after'];
  return { status: res.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
}

it(`${CAP} sessions opened while 100 clients listen: past the cap, 503 with Retry-After; all 100 still hear an event`, async () => {
  await openListeners(legacyWatcher);
  await openListeners(modernWatcher);
  expect(watchers.every((w) => w.subscribable)).toBe(true);

  const answers: { status: number; retryAfter: string | null }[] = [];
  for (let i = 0; i < CAP; i += 25) answers.push(...(await Promise.all(Array.from({ length: 25 }, (_, j) => initialize(i + j)))));
  const opened = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 503);
  // The 50 legacy listeners hold 50 of the places.
  expect(opened).toBe(CAP - LISTENERS_PER_ERA);
  expect(refused.length).toBe(LISTENERS_PER_ERA);
  expect(refused.every((a) => Number(a.retryAfter) >= 1)).toBe(true);

  // Past the request timeout: the listeners' streams are not requests still arriving, so they stay.
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const since = Date.now();
  const body = JSON.stringify({
    id: 'evt_session_cap',
    event: 'quote.accepted',
    created_at: new Date().toISOString(),
    data: { quote: { id: 1 } },
  });
  const delivered = await fetch(hook, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(secret, Math.floor(Date.now() / 1000), body) },
    body,
  });
  expect(delivered.status).toBe(204);
  const heard = await Promise.allSettled(watchers.map((w) => w.updated(URI, since, 5_000)));
  expect(heard.filter((h) => h.status === 'fulfilled').length).toBe(LISTENERS_PER_ERA * 2);
}, 120_000);
