// Webhooks to subscriptions, end to end: the sandbox sends its signed webhooks to the server (its own
// listener in stdio mode, /webhooks beside /mcp in HTTP mode), and clients of both eras, subscribed to
// the records and feeds, hear of each change within a second and read the new state. On the sandbox's small
// second business: a kind a webhook names is read again, in full the first time.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/events/signature.js';
import { type OwnBooks, ownBooks } from './support/business-ops.js';
import { watchBusinessDay } from './support/event-scenario.js';
import { legacyWatcher, modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { freePort, type HttpServer, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

/** A sandbox and its second business's operations: the stdio blocks have their own, and run beside the rest. */
const booksOfItsOwn = (): Promise<OwnBooks> => ownBooks({ webhookBackoffMs: 20 });

let books: OwnBooks;
beforeAll(async () => {
  books = await booksOfItsOwn();
});
afterAll(async () => {
  await books?.close();
});

/** Registers http://127.0.0.1:PORT/webhooks with the sandbox; the server started on PORT gets its secret. */
async function webhookEndpoint({ sb, ops } = books): Promise<{ port: number; env: Record<string, string> }> {
  const port = await freePort();
  const reply = await sb.admin('POST', '/webhooks', { url: `http://127.0.0.1:${port}/webhooks`, business_id: 2 });
  expect(reply.status).toBe(201);
  const env = {
    SVC_BASE_URL: sb.baseUrl,
    SVC_KEY_ID: ops.key.key_id,
    SVC_SECRET: ops.key.secret,
    SVC_WEBHOOK_SECRET: reply.body.secret as string,
    SVC_POLL_SECONDS: '0',
  };
  return { port, env };
}

// Every block runs beside the others: the stdio ones on books of their own, the HTTP ones on the file's.
describe.each([
  ['the v2 client on 2026-07-28', modernWatcher, '2026-07-28'],
  ['the v1 client on 2025-11-25', legacyWatcher, undefined],
] as const)('over stdio, %s', { concurrent: true }, (_name, open, version) => {
  let own: OwnBooks;
  let watcher: Watcher;
  beforeAll(async () => {
    own = await booksOfItsOwn();
  });
  afterAll(async () => {
    await watcher?.close();
    await own?.close();
  });

  it('hears of every change within a second of the webhook, and reads the new state', async () => {
    const { port, env } = await webhookEndpoint(own);
    watcher = await open({ linked: await stdioHere(['--webhook-port', String(port)], env) });
    if (version) expect(watcher.protocolVersion).toBe(version);
    await watchBusinessDay(watcher, own.ops, 1000);
  });
});

describe('over HTTP, one server', { concurrent: true }, () => {
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

  // One after the other: both watch the same books.
  it.sequential('the v2 client on 2026-07-28 hears of every change within a second', async () => {
    const w = await modernWatcher({ http: server.url });
    watchers.push(w);
    expect(w.protocolVersion).toBe('2026-07-28');
    await watchBusinessDay(w, books.ops, 1000);
  });

  it.sequential('the v1 client on 2025-11-25 hears of every change within a second (in its session)', async () => {
    const w = await legacyWatcher({ http: server.url });
    watchers.push(w);
    expect(w.protocolVersion).toBe('2025-11-25');
    await watchBusinessDay(w, books.ops, 1000);
  });
});

describe('over HTTP with a bearer token', { concurrent: true }, () => {
  it('guards /mcp only: /webhooks answers by the signature (204 signed, 400 forged), never 401', async () => {
    const { port, env } = await webhookEndpoint();
    const token = 'a-token-for-the-webhook-test';
    // No mirror: what is checked is who may post where, not where a delivery goes.
    const server = await spawnHttpServer(['--port', String(port), '--http-token', token, '--mirror', 'off'], env);
    // Connections of this test's own, closed before the server is stopped: a kept-alive one would hold it up.
    const connections = new Agent();
    try {
      const hook = `http://127.0.0.1:${port}/webhooks`;
      expect((await fetch(server.url, { method: 'POST', body: '{}', dispatcher: connections } as RequestInit)).status).toBe(401);
      const body = JSON.stringify({
        id: 'evt_token_test',
        event: 'quote.accepted',
        created_at: new Date().toISOString(),
        data: { quote: { id: 1 } },
      });
      const now = Math.floor(Date.now() / 1000);
      const post = (signature: string) =>
        fetch(hook, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-signature': signature },
          body,
          dispatcher: connections,
        } as RequestInit);
      expect((await post(signPayload('whsec_not_the_secret', now, body))).status).toBe(400);
      expect((await post(signPayload(env.SVC_WEBHOOK_SECRET as string, now, body))).status).toBe(204);
      expect(server.stderr()).not.toContain(env.SVC_WEBHOOK_SECRET);
      expect(server.stderr()).not.toContain(token);
    } finally {
      await connections.close();
      await server.close();
    }
  });
});
