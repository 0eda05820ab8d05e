// The mirror's sync to subscriptions, end to end: no webhook reaches the server (a desktop behind a
// router), so its mirror finds the changes itself with updated_since at least every poll interval, and
// clients of both eras hear of each within the interval plus two seconds. The servers watch the sandbox's
// small second business and poll every 0.2 s (SVC_POLL_MS, the tests' finer form of SVC_POLL_SECONDS), so
// that a first sync and each wait for the next round cost little.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type OwnBooks, ownBooks } from './support/business-ops.js';
import { watchBusinessDay } from './support/event-scenario.js';
import { legacyWatcher, modernWatcher, type Watcher } from './support/mcp-watchers.js';
import { untilRounds } from './support/poll-rounds.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const INTERVAL_MS = 200;
const LIMIT_MS = INTERVAL_MS + 2000;
const BUSINESS = 2;

/**
 * A sandbox of the scenario's own, so that scenarios run side by side without touching each other's records;
 * a limit of 60,000 a minute lets the mirror read every 0.2 s within its share.
 */
const booksOfItsOwn = (): Promise<OwnBooks> => ownBooks({ rateLimit: 60_000, rateWindowSeconds: 60 });

/** A key of its own for each server, so that its calls can be told apart in the sandbox's log. */
async function serverKey(sb: TestSandbox): Promise<{ key: KeyPair; env: Record<string, string> }> {
  const key = await sb.makeKey('live', ALL_SCOPES, BUSINESS);
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_MS: String(INTERVAL_MS) };
  return { key, env };
}

const LISTS = ['invoices', 'payments', 'quotes', 'products'].map((kind) => `/api/v1/${kind}`);

/**
 * Resolves once the server's mirror has made two incremental rounds: its first full read of the books (no
 * updated_since) is then done, so a change made now is news.
 */
const pollerPastBaseline = (sb: TestSandbox, key: KeyPair): Promise<void> => untilRounds(sb, key.key_id, LISTS, 2);

// Each block has books and a server of its own: the blocks run side by side.
describe.each([
  ['the v2 client on 2026-07-28', modernWatcher],
  ['the v1 client on 2025-11-25', legacyWatcher],
] as const)('over stdio, %s', { concurrent: true }, (_name, open) => {
  let books: OwnBooks;
  let watcher: Watcher;
  beforeAll(async () => {
    books = await booksOfItsOwn();
  });
  afterAll(async () => {
    await watcher?.close();
    await books?.close();
  });

  it(`hears of every change within ${LIMIT_MS} ms, and reads the new state`, async () => {
    const { key, env } = await serverKey(books.sb);
    watcher = await open({ linked: await stdioHere([], env) });
    await pollerPastBaseline(books.sb, key);
    await watchBusinessDay(watcher, books.ops, LIMIT_MS);
  });
});

describe('over HTTP, one server', { concurrent: true }, () => {
  let books: OwnBooks;
  let server: HttpServer;
  let secret: string;
  const watchers = new Map<string, Watcher>();
  beforeAll(async () => {
    books = await booksOfItsOwn();
    const { key, env } = await serverKey(books.sb);
    secret = key.secret;
    server = await spawnHttpServer([], env);
    // Connected before the mirror starts: their handshakes are the traffic it waits to see end.
    watchers.set('modern', await modernWatcher({ http: server.url }));
    watchers.set('legacy', await legacyWatcher({ http: server.url }));
    await pollerPastBaseline(books.sb, key);
  });
  afterAll(async () => {
    for (const w of watchers.values()) await w.close().catch(() => undefined);
    await server?.close();
    await books?.close();
  });

  // One after the other: both watch the same books.
  it.sequential.each([
    ['the v2 client on 2026-07-28', 'modern'],
    ['the v1 client on 2025-11-25', 'legacy'],
  ] as const)(`%s hears of every change within ${LIMIT_MS} ms`, async (_name, era) => {
    const w = watchers.get(era) as Watcher;
    await watchBusinessDay(w, books.ops, LIMIT_MS);
    expect(server.stderr()).not.toContain(secret);
  });
});

describe('with --mirror off', { concurrent: true }, () => {
  it('keeps no file and still announces every change to subscribers', async () => {
    const books = await booksOfItsOwn();
    const { key, env } = await serverKey(books.sb);
    const cache = mkdtempSync(join(tmpdir(), 'mirror-off-'));
    const server = await spawnHttpServer(['--mirror', 'off'], { ...env, XDG_CACHE_HOME: cache });
    try {
      const w = await legacyWatcher({ http: server.url });
      await pollerPastBaseline(books.sb, key);
      expect(server.stderr()).toContain(
        `Mirror: off (--mirror off); changes are still read every ${INTERVAL_MS / 1000} s for subscriptions.`,
      );
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
    const sb = await startTestSandbox();
    const key = await sb.makeKey('live', ALL_SCOPES, BUSINESS);
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_SECONDS: '0' };
    const server = await spawnHttpServer([], env);
    try {
      const w = await legacyWatcher({ http: server.url });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await sb.requests(key.key_id)).toEqual([]);
      expect(w.subscribable).toBe(false);
      await expect(w.subscribe(['invoicing://invoices/1'])).rejects.toThrow();
      await w.close();
      expect(server.stderr()).toContain('resource subscriptions are not offered');
    } finally {
      await server.close();
      await sb.close();
    }
  });
});
