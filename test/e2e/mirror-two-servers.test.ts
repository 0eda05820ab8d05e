// Two server processes on one mirror file (two desktop clients with the same key): one syncs, the other
// only reads the file; the file stays consistent with the API, and subscribers of both servers hear of a
// change the syncing one found. On the sandbox's small second business, polled every 0.2 s (SVC_POLL_MS,
// the tests' finer form of SVC_POLL_SECONDS).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectMirrorFile } from '../../src/store/sqlite/inspect.js';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessOps } from './support/business-ops.js';
import { modernWatcher } from './support/mcp-watchers.js';
import { untilMirror } from './support/mirror-servers.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 60_000 });
});
afterAll(async () => {
  await sb?.close();
});

/** The service calls a server logged (at debug), list reads and gets alike. */
const serviceCalls = (server: HttpServer): number =>
  server
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"msg":"service call"')).length;

describe('two servers on one mirror file', () => {
  it('one syncs, both announce, and the file matches the API', async () => {
    const ops = await businessOps(sb, 2);
    const key = await sb.makeKey('live', undefined, 2);
    const path = join(mkdtempSync(join(tmpdir(), 'mirror-two-')), 'books.db');
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_MS: '200' };
    const args = ['--mirror', path, '--log-level', 'debug'];
    const servers = await Promise.all([spawnHttpServer(args, env), spawnHttpServer(args, env)]);
    const watchers = await Promise.all(servers.map((s) => modernWatcher({ http: s.url })));
    try {
      const session = await signIn(sb.baseUrl, key);
      const invoices = (await listAll(session, '/api/v1/invoices')).length;
      const report = await untilMirror({ path }, (r) => r.marks.size === 5, 20_000);
      expect(report?.counts?.invoices).toBe(invoices);
      const invoice = await ops.draftInvoice();
      for (const w of watchers) await w.subscribe(['invoicing://events']);
      const since = Date.now();
      await ops.sendInvoice(invoice.id);
      for (const w of watchers) await w.updated('invoicing://events', since, 6000);
      for (const w of watchers) {
        const feed = await w.readJson('invoicing://events');
        expect(JSON.stringify(feed)).toContain(`"id":${invoice.id}`);
      }
      const calls = servers.map(serviceCalls);
      expect(
        calls.filter((n) => n > 0),
        `service calls per server: ${calls}`,
      ).toHaveLength(1);
      const stored = (await inspectMirrorFile(path)).counts;
      expect(stored?.invoices).toBe((await listAll(session, '/api/v1/invoices')).length);
      expect(stored?.payments).toBe((await listAll(session, '/api/v1/payments')).length);
    } finally {
      for (const w of watchers) await w.close().catch(() => undefined);
      for (const s of servers) await s.close();
      await ops.close();
    }
  }, 60_000);
});
