// Two server processes on one mirror file, the service's webhooks delivered to one of them at a time (a relay
// in the test forwards each delivery to the process it chooses, or to none): whichever process learnt of a
// change, by webhook or by polling, the subscribers of both hear of it exactly once.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inspectMirrorFile } from '../../src/books/sqlite/inspect.js';
import { businessOps, type Expected } from '../contract/events-ops.js';
import { signIn } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';

let sb: TestSandbox;
let relay: Server;
/** Where the relay sends the next deliveries: a server's /webhooks, or null to drop them. */
let target: string | null = null;
const forwarded: string[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 6000, webhookBackoffMs: 20 });
  relay = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const to = target;
      if (to === null) {
        res.writeHead(204).end();
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => name === 'content-type' || name.startsWith('x-service')),
      ) as Record<string, string>;
      const answer = await fetch(to, { method: 'POST', headers, body: Buffer.concat(chunks) });
      forwarded.push(`${to} ${answer.status}`);
      res.writeHead(answer.status).end();
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => relay?.close(resolve));
  await sb?.close();
});

/** How many events each feed holds for this change (its kind and record). */
async function heard(watcher: Watcher, change: Expected): Promise<number> {
  const feed = await watcher.readJson('invoicing://events');
  return (feed.events as { event: string; resource: string }[]).filter((e) => e.event === change.kind && e.resource === change.record)
    .length;
}

async function untilBothHeard(watchers: Watcher[], changes: Expected[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const counts = await Promise.all(watchers.flatMap((w) => changes.map((c) => heard(w, c))));
    if (counts.every((n) => n >= 1) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 150));
  }
}

it('each change, learnt by webhook at one process or by polling, is heard once by the subscribers of both', async () => {
  const key = await sb.makeKey('live');
  const port = (relay.address() as { port: number }).port;
  const endpoint = await sb.admin('POST', '/webhooks', { url: `http://127.0.0.1:${port}/webhooks` });
  expect(endpoint.status).toBe(201);
  const path = join(mkdtempSync(join(tmpdir(), 'mirror-two-hooks-')), 'books.db');
  const env = {
    SVC_BASE_URL: sb.baseUrl,
    SVC_KEY_ID: key.key_id,
    SVC_SECRET: key.secret,
    SVC_WEBHOOK_SECRET: endpoint.body.secret as string,
    SVC_POLL_SECONDS: '1',
  };
  const servers: HttpServer[] = [await spawnHttpServer(['--mirror', path], env), await spawnHttpServer(['--mirror', path], env)];
  const watchers: Watcher[] = [];
  try {
    for (const s of servers) watchers.push(await modernWatcher({ http: s.url }));
    for (let report = await inspectMirrorFile(path); report.marks.size < 5; report = await inspectMirrorFile(path)) {
      await new Promise((r) => setTimeout(r, 150));
    }
    for (const w of watchers) await w.subscribe(['invoicing://events']);
    const hooks = servers.map((s) => s.url.replace(/\/mcp$/, '/webhooks'));
    const ops = await businessOps(sb, await signIn(sb.baseUrl, sb.keys.live));
    // Webhooks to the first process, then the second, then the first; the last change reaches neither.
    const routes = [hooks[0], hooks[1], hooks[0], null];
    const changes: Expected[] = [];
    for (const [n, op] of ops.entries()) {
      target = routes[n] ?? null;
      const made = await op.run();
      changes.push(...made);
      await untilBothHeard(watchers, made);
    }
    // Late repeats (another process's relay, the next poll) would come within a few seconds.
    await new Promise((r) => setTimeout(r, 3_000));
    for (const [i, w] of watchers.entries()) {
      for (const change of changes) {
        expect(await heard(w, change), `process ${i + 1}, ${change.kind} ${change.record}; forwarded: ${forwarded.join(', ')}`).toBe(1);
      }
    }
    expect(forwarded.filter((f) => f.startsWith(hooks[0] as string)).length).toBeGreaterThan(0);
    expect(forwarded.filter((f) => f.startsWith(hooks[1] as string)).length).toBeGreaterThan(0);
  } finally {
    for (const w of watchers) await w.close().catch(() => undefined);
    for (const s of servers) await s.close();
  }
}, 60_000);
