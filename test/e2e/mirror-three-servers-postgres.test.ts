// Three server processes (--http) on one Postgres mirror, as a deployment behind a load balancer runs them: a
// client's stateless (2026-07-28) calls go through a balancer in the test, each to the next live process. The
// process holding the sync lease is killed (SIGKILL) in the middle of the first sync; another takes the lease
// over and finishes it; the database then holds exactly what the raw API lists (every record of every kind,
// every invoice's lines). A listening client on each surviving process hears each later change exactly once,
// whether its webhook reached one process (picked at random) or none (found by polling). On the sandbox's
// small second business, every call answered after 15 ms during the first sync so that it outlasts the kill.
import { createServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Mirror } from '../../src/books/mirror.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import { mirrorIdentity } from '../../src/store/location.js';
import { inspectPostgresMirror, type PostgresMirrorReport } from '../../src/store/postgres/inspect.js';
import type { MirrorBooksReport } from '../../src/store/store.js';
import { MIRRORED_KINDS } from '../../src/store/types.js';
import { differences } from '../contract/books-sync-support.js';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessOps } from './support/business-ops.js';
import { type Connected, connectClient } from './support/clients.js';
import { modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { untilMirror } from './support/mirror-servers.js';
import { type HttpServer, spawnHttpProcess } from './support/server.js';
import { type Change, heard, lateRepeatsPassed, makeChanges, startRelay, webhookServerEnv } from './support/shared-mirror-events.js';
import { invoicesWithWrongLines } from './support/stored-lines.js';

const POLL_MS = 200;
const LATENCY_MS = 15;

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000, webhookBackoffMs: 20 });
});
afterAll(() => sb?.close());

/** A balancer on loopback: each request to the next live server, round robin, its Host rewritten as a proxy does. */
interface Balancer {
  url: string;
  /** How many requests each server was sent, by its URL. */
  sent: Map<string, number>;
  /** Takes a server out of the rotation, as a health check that failed would. */
  drop(url: string): void;
  close(): Promise<void>;
}

async function startBalancer(upstreams: string[]): Promise<Balancer> {
  const live = [...upstreams];
  const sent = new Map(upstreams.map((u) => [u, 0]));
  let turn = 0;
  const server: Server = createServer((req, res) => {
    const to = new URL(live[turn++ % live.length] as string);
    sent.set(to.toString(), (sent.get(to.toString()) ?? 0) + 1);
    const up = request(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.headersSent || res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sent,
    drop: (url) => void live.splice(live.indexOf(url), 1),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const pidOf = (report: PostgresMirrorReport): number | null => Number(report.holder?.split('/')[1]) || null;
const complete = (report: MirrorBooksReport, invoices: number): boolean =>
  report.marks.size === MIRRORED_KINDS.length && report.coverage?.withLines === invoices;

it('the lease holder killed mid-sync, another finishes; the database equals the raw API; each listener hears each change once', async () => {
  const key = await sb.makeKey('live', ALL_SCOPES, 2);
  const ops = await businessOps(sb, 2);
  const relay = await startRelay();
  const env = await webhookServerEnv(sb, relay, key, 2, POLL_MS);
  const url = await postgresDatabase('three_servers');
  const session = await signIn(sb.baseUrl, key);
  const invoiceCount = (await listAll(session, '/api/v1/invoices')).length;
  await sb.faults(1, ['latency'], LATENCY_MS);
  const servers: HttpServer[] = await Promise.all([0, 1, 2].map(() => spawnHttpProcess(['--mirror', url], env)));
  const balancer = await startBalancer(servers.map((s) => s.url));
  const watchers: Watcher[] = [];
  let client: Connected | null = null;
  try {
    client = await connectClient('v2', { http: balancer.url });
    const spread = async (calls: number): Promise<void> => {
      for (let n = 0; n < calls; n++) {
        const result = await client!.client.callTool({ name: 'list_invoices', arguments: { per_page: 5 } });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      }
    };
    await spread(6);
    for (const s of servers) expect(balancer.sent.get(s.url), `calls sent to ${s.url}`).toBeGreaterThan(0);

    // The first sync under way: the holder is one of ours and the books are not all in yet. Killed then.
    const syncing = await untilMirror({ postgres: url }, (r) => servers.some((s) => s.pid === pidOf(r)), 20_000);
    expect(syncing, 'a server took the lease').not.toBeNull();
    const holder = servers.find((s) => s.pid === pidOf(syncing as PostgresMirrorReport)) as HttpServer;
    await new Promise((r) => setTimeout(r, Math.round(Math.random() * 100)));
    await holder.crash();
    balancer.drop(holder.url);
    const atKill = await inspectPostgresMirror(url);
    expect(complete(atKill, invoiceCount), 'the holder was killed before the first sync was done').toBe(false);
    const survivors = servers.filter((s) => s !== holder);

    await spread(4);
    const done = await untilMirror(
      { postgres: url },
      (r) => complete(r, invoiceCount) && survivors.some((s) => s.pid === pidOf(r)),
      20_000,
    );
    expect(done, 'a surviving server took the lease over and finished the first sync').not.toBeNull();
    await sb.clearFaults();

    watchers.push(...(await Promise.all(survivors.map((s) => modernWatcher({ http: s.url })))));
    for (const w of watchers) await w.subscribe(['invoicing://events']);
    const hooks = survivors.map((s) => s.url.replace(/\/mcp$/, '/webhooks'));
    const aHook = (): string => hooks[Math.floor(Math.random() * hooks.length)] as string;
    const [a, b] = [await ops.draftInvoice(), await ops.draftInvoice()] as const;
    const quote = await ops.openQuote();
    const invoice = (id: number): string => `invoicing://invoices/${id}`;
    const steps: [string | null, () => Promise<Change[]>][] = [
      [
        aHook(),
        async () => {
          await ops.sendInvoice(a.id);
          await ops.sendInvoice(b.id);
          return [
            { kind: 'invoice.sent', record: invoice(a.id) },
            { kind: 'invoice.sent', record: invoice(b.id) },
          ];
        },
      ],
      [
        aHook(),
        async () => {
          const full = await ops.pay(b.id, b.total);
          return [
            { kind: 'payment.recorded', record: `invoicing://payments/${full}` },
            { kind: 'invoice.paid', record: invoice(b.id) },
          ];
        },
      ],
      // No webhook reaches any process: the holder's polling finds it.
      [
        null,
        async () => {
          await ops.acceptQuote(quote);
          return [{ kind: 'quote.accepted', record: `invoicing://quotes/${quote}` }];
        },
      ],
    ];
    const changes = await makeChanges(relay, watchers, steps);
    await lateRepeatsPassed(sb, key.key_id, ['invoices', 'payments', 'quotes'], POLL_MS);
    for (const [i, w] of watchers.entries()) {
      for (const change of changes) {
        expect(await heard(w, change), `survivor ${i + 1}, ${change.kind} ${change.record}; forwarded: ${relay.forwarded}`).toBe(1);
      }
    }

    // The database against the raw API, read by the test itself.
    const truth: Record<string, unknown[]> = {};
    for (const kind of MIRRORED_KINDS) truth[kind] = await listAll(session, `/api/v1/${kind}`);
    await untilMirror({ postgres: url }, (r) => r.coverage?.withLines === truth.invoices?.length, 10_000);
    const store = await openMirrorStore({
      location: { kind: 'postgres', url },
      identity: mirrorIdentity(sb.baseUrl, key.key_id),
      warn: () => {},
    });
    try {
      expect(await differences({ store } as unknown as Mirror, truth as never)).toEqual([]);
      const wrong = await invoicesWithWrongLines(session, truth.invoices as { id: number }[], await store.read.lines({}));
      expect(wrong).toEqual([]);
    } finally {
      await store.close();
    }
  } finally {
    await client?.close().catch(() => undefined);
    for (const w of watchers) await w.close().catch(() => undefined);
    await balancer.close();
    await relay.close();
    for (const s of servers) await s.close();
    await ops.close();
  }
}, 60_000);
