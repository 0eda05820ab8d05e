// Two server processes on one mirror (a file, and a Postgres database), the service's webhooks delivered to one
// of them at a time (a relay in the test forwards each delivery to the process it chooses, or to none):
// whichever process learnt of a change, by webhook or by polling, the subscribers of both hear of it exactly
// once. On the sandbox's small second business, polled every 0.2 s (SVC_POLL_MS, the tests' finer form of
// SVC_POLL_SECONDS). Each engine has a sandbox and a relay of its own, so the two run side by side.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES, type EngineName, postgresDatabase } from '../support/postgres.js';
import { startTestSandbox } from '../support/sandbox.js';
import { businessOps } from './support/business-ops.js';
import { modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { untilMirror } from './support/mirror-servers.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';
import { type Change, heard, lateRepeatsPassed, makeChanges, startRelay, webhookServerEnv } from './support/shared-mirror-events.js';

/** Also how often each process looks at the file for events another one wrote (src/books/outbox.ts). */
const POLL_MS = 200;

/** The --mirror setting both processes share, and how the test reads what it holds. */
async function sharedMirror(engine: EngineName): Promise<{ setting: string; where: { path: string } | { postgres: string } }> {
  if (engine === 'postgres') {
    const url = await postgresDatabase('two_servers_webhooks');
    return { setting: url, where: { postgres: url } };
  }
  const path = join(mkdtempSync(join(tmpdir(), 'mirror-two-hooks-')), 'books.db');
  return { setting: path, where: { path } };
}

describe.each(ENGINES)('on %s', { concurrent: true }, (engine) => {
  it('each change, learnt by webhook at one process or by polling, is heard once by the subscribers of both', async () => {
    const sb = await startTestSandbox({ rateLimit: 60_000, webhookBackoffMs: 20 });
    const relay = await startRelay();
    const ops = await businessOps(sb, 2);
    const key = await sb.makeKey('live', undefined, 2);
    const env = await webhookServerEnv(sb, relay, key, 2, POLL_MS);
    const mirror = await sharedMirror(engine);
    const servers: HttpServer[] = await Promise.all([
      spawnHttpServer(['--mirror', mirror.setting], env),
      spawnHttpServer(['--mirror', mirror.setting], env),
    ]);
    const watchers: Watcher[] = [];
    try {
      watchers.push(...(await Promise.all(servers.map((s) => modernWatcher({ http: s.url })))));
      expect(await untilMirror(mirror.where, (r) => r.marks.size === 5, 20_000)).not.toBeNull();
      for (const w of watchers) await w.subscribe(['invoicing://events']);
      const hooks = servers.map((s) => s.url.replace(/\/mcp$/, '/webhooks'));
      const [a, b] = [await ops.draftInvoice(), await ops.draftInvoice()] as const;
      const quote = await ops.openQuote();
      const product = await ops.productAboveReorder();
      const invoice = (id: number) => `invoicing://invoices/${id}`;
      const operations: (() => Promise<Change[]>)[] = [
        async () => {
          await ops.sendInvoice(a.id);
          await ops.sendInvoice(b.id);
          return [
            { kind: 'invoice.sent', record: invoice(a.id) },
            { kind: 'invoice.sent', record: invoice(b.id) },
          ];
        },
        async () => {
          const part = await ops.pay(a.id, '40.00');
          const full = await ops.pay(b.id, b.total);
          return [
            { kind: 'payment.recorded', record: `invoicing://payments/${part}` },
            { kind: 'payment.recorded', record: `invoicing://payments/${full}` },
            { kind: 'invoice.paid', record: invoice(b.id) },
          ];
        },
        async () => {
          await ops.acceptQuote(quote);
          return [{ kind: 'quote.accepted', record: `invoicing://quotes/${quote}` }];
        },
        async () => {
          await ops.dropToReorder(product);
          return [{ kind: 'stock.low', record: `invoicing://products/${product.id}` }];
        },
      ];
      // Webhooks to the first process, then the second, then the first; the last change reaches neither.
      const routes = [hooks[0], hooks[1], hooks[0], null];
      const changes = await makeChanges(
        relay,
        watchers,
        operations.map((operation, n) => [routes[n] ?? null, operation] as const),
      );
      await lateRepeatsPassed(sb, key.key_id, ['invoices', 'payments', 'quotes', 'products'], POLL_MS);
      for (const [i, w] of watchers.entries()) {
        for (const change of changes) {
          expect(
            await heard(w, change),
            `process ${i + 1}, ${change.kind} ${change.record}; forwarded: ${relay.forwarded.join(', ')}`,
          ).toBe(1);
        }
      }
      expect(relay.forwarded.filter((f) => f.startsWith(hooks[0] as string)).length).toBeGreaterThan(0);
      expect(relay.forwarded.filter((f) => f.startsWith(hooks[1] as string)).length).toBeGreaterThan(0);
    } finally {
      for (const w of watchers) await w.close().catch(() => undefined);
      await relay.close();
      for (const s of servers) await s.close();
      await ops.close();
      await sb.close();
    }
  }, 60_000);
});
