// The mirror's sync to subscriptions, end to end: no webhook reaches the server (a desktop behind a
// router), so its mirror finds the changes itself with updated_since at least every SVC_POLL_SECONDS, and
// clients of both eras hear of each within the interval plus two seconds.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BusinessOps, businessOps } from './support/business-ops.js';
import { watchBusinessDay } from './support/event-scenario.js';
import { legacyWatcher, modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { type HttpServer, spawnHttpServer, stdioCommand } from './support/server.js';

const INTERVAL_SECONDS = 1;
const LIMIT_MS = INTERVAL_SECONDS * 1000 + 2000;

/** A sandbox of the scenario's own, so that scenarios run side by side without touching each other's records. */
interface Books {
  sb: TestSandbox;
  ops: BusinessOps;
  close(): Promise<void>;
}

async function ownBooks(): Promise<Books> {
  // A limit of 6,000 a minute lets the mirror read every second within its share.
  const sb = await startTestSandbox({ rateLimit: 6000, rateWindowSeconds: 60 });
  const api: ApiClient = makeClient(sb, sb.keys.live, captureLogs('warn'));
  return {
    sb,
    ops: businessOps(sb, api),
    close: async () => {
      await api.close();
      await sb.close();
    },
  };
}

/** A key of its own for each server, so that its calls can be told apart in the sandbox's log. */
async function serverKey(sb: TestSandbox): Promise<{ key: KeyPair; env: Record<string, string> }> {
  const key = await sb.makeKey('live', ALL_SCOPES);
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_SECONDS: String(INTERVAL_SECONDS) };
  return { key, env };
}

const LISTS = ['invoices', 'payments', 'quotes', 'products'].map((kind) => `/api/v1/${kind}`);

/**
 * Resolves once the server's mirror has made two incremental rounds: its first full read of the books (no
 * updated_since) is then done, so a change made now is news.
 */
async function pollerPastBaseline(sb: TestSandbox, key: KeyPair): Promise<void> {
  // A wait for a state, not a measure: on a busy machine the first full read takes longer.
  const deadline = Date.now() + 25_000;
  while (Date.now() < deadline) {
    const paths = (await sb.requests(key.key_id))
      .filter((r) => r.method === 'GET' && r.path.includes('updated_since='))
      .map((r) => r.path.split('?')[0]);
    if (LISTS.every((list) => paths.filter((p) => p === list).length >= 2)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the mirror made no second incremental round of list calls within 25 s');
}

// Each block has books and a server of its own: the blocks run side by side.
describe.each([
  ['the v2 client on 2026-07-28', modernWatcher],
  ['the v1 client on 2025-11-25', legacyWatcher],
] as const)('over stdio, %s', { concurrent: true }, (_name, open) => {
  let books: Books;
  let watcher: Watcher;
  beforeAll(async () => {
    books = await ownBooks();
  });
  afterAll(async () => {
    await watcher?.close();
    await books?.close();
  });

  it(`hears of every change within ${LIMIT_MS} ms, and reads the new state`, async () => {
    const { key, env } = await serverKey(books.sb);
    watcher = await open({ stdio: stdioCommand([], env) });
    await pollerPastBaseline(books.sb, key);
    await watchBusinessDay(watcher, books.ops, LIMIT_MS);
  });
});

describe('over HTTP, one server', { concurrent: true }, () => {
  let books: Books;
  let server: HttpServer;
  let secret: string;
  const watchers: Watcher[] = [];
  beforeAll(async () => {
    books = await ownBooks();
    const { key, env } = await serverKey(books.sb);
    secret = key.secret;
    server = await spawnHttpServer([], env);
    await pollerPastBaseline(books.sb, key);
  });
  afterAll(async () => {
    for (const w of watchers) await w.close().catch(() => undefined);
    await server?.close();
    await books?.close();
  });

  // One after the other: both watch the same books.
  it.sequential.each([
    ['the v2 client on 2026-07-28', modernWatcher],
    ['the v1 client on 2025-11-25', legacyWatcher],
  ] as const)(`%s hears of every change within ${LIMIT_MS} ms`, async (_name, open) => {
    const w = await open({ http: server.url });
    watchers.push(w);
    await watchBusinessDay(w, books.ops, LIMIT_MS);
    expect(server.stderr()).not.toContain(secret);
  });
});

describe('with --mirror off', { concurrent: true }, () => {
  it('keeps no file and still announces every change to subscribers', async () => {
    const books = await ownBooks();
    const { key, env } = await serverKey(books.sb);
    const cache = mkdtempSync(join(tmpdir(), 'mirror-off-'));
    const server = await spawnHttpServer(['--mirror', 'off'], { ...env, XDG_CACHE_HOME: cache });
    try {
      await pollerPastBaseline(books.sb, key);
      expect(server.stderr()).toContain('Mirror: off (--mirror off); changes are still read every 1 s for subscriptions.');
      const w = await legacyWatcher({ http: server.url });
      await watchBusinessDay(w, books.ops, LIMIT_MS);
      await w.close();
      // Only the four lists with events are read (the watcher's reads of records are its own).
      const lists = (await books.sb.requests(key.key_id)).map((r) => r.path).filter((p) => p.includes('?'));
      expect(lists.length).toBeGreaterThan(8);
      expect(lists.filter((p) => !/^\/api\/v1\/(invoices|payments|quotes|products)\?/.test(p))).toEqual([]);
      expect(readdirSync(cache)).toEqual([]);
    } finally {
      await server.close();
      await books.close();
    }
  });
});

describe('with SVC_POLL_SECONDS=0 and no webhook secret', { concurrent: true }, () => {
  it('makes no call of its own and offers no subscriptions', async () => {
    const books = await ownBooks();
    const { key, env } = await serverKey(books.sb);
    const server = await spawnHttpServer([], { ...env, SVC_POLL_SECONDS: '0' });
    try {
      const w = await legacyWatcher({ http: server.url });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await books.sb.requests(key.key_id)).toEqual([]);
      expect(w.subscribable).toBe(false);
      await expect(w.subscribe(['invoicing://invoices/1'])).rejects.toThrow();
      await w.close();
      expect(server.stderr()).toContain('resource subscriptions are not offered');
    } finally {
      await server.close();
      await books.close();
    }
  });
});
