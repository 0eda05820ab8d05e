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

let sb: TestSandbox;
let api: ApiClient;
let ops: BusinessOps;

/** A key of its own for each server, so that its calls can be told apart in the sandbox's log. */
async function serverKey(): Promise<{ key: KeyPair; env: Record<string, string> }> {
  const key = await sb.makeKey('live', ALL_SCOPES);
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_SECONDS: String(INTERVAL_SECONDS) };
  return { key, env };
}

const LISTS = ['invoices', 'payments', 'quotes', 'products'].map((kind) => `/api/v1/${kind}`);

/**
 * Resolves once the server's mirror has made two incremental rounds: its first full read of the books (no
 * updated_since) is then done, so a change made now is news.
 */
async function pollerPastBaseline(key: KeyPair): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const paths = (await sb.requests(key.key_id))
      .filter((r) => r.method === 'GET' && r.path.includes('updated_since='))
      .map((r) => r.path.split('?')[0]);
    if (LISTS.every((list) => paths.filter((p) => p === list).length >= 2)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the mirror made no second incremental round of list calls within 10 s');
}

beforeAll(async () => {
  // A limit of 6,000 a minute lets the mirror read every second within its share.
  sb = await startTestSandbox({ rateLimit: 6000, rateWindowSeconds: 60 });
  api = makeClient(sb, sb.keys.live, captureLogs('warn'));
  ops = businessOps(sb, api);
});

afterAll(async () => {
  await api?.close();
  await sb?.close();
});

describe.each([
  ['the v2 client on 2026-07-28', modernWatcher],
  ['the v1 client on 2025-11-25', legacyWatcher],
] as const)('over stdio, %s', (_name, open) => {
  let watcher: Watcher;
  afterAll(async () => watcher?.close());

  it(`hears of every change within ${LIMIT_MS} ms, and reads the new state`, async () => {
    const { key, env } = await serverKey();
    watcher = await open({ stdio: stdioCommand([], env) });
    await pollerPastBaseline(key);
    await watchBusinessDay(watcher, ops, LIMIT_MS);
  });
});

describe('over HTTP, one server', () => {
  let server: HttpServer;
  let secret: string;
  const watchers: Watcher[] = [];
  beforeAll(async () => {
    const { key, env } = await serverKey();
    secret = key.secret;
    server = await spawnHttpServer([], env);
    await pollerPastBaseline(key);
  });
  afterAll(async () => {
    for (const w of watchers) await w.close().catch(() => undefined);
    await server?.close();
  });

  it.each([
    ['the v2 client on 2026-07-28', modernWatcher],
    ['the v1 client on 2025-11-25', legacyWatcher],
  ] as const)(`%s hears of every change within ${LIMIT_MS} ms`, async (_name, open) => {
    const w = await open({ http: server.url });
    watchers.push(w);
    await watchBusinessDay(w, ops, LIMIT_MS);
    expect(server.stderr()).not.toContain(secret);
  });
});

describe('with --mirror off', () => {
  it('keeps no file and still announces every change to subscribers', async () => {
    const { key, env } = await serverKey();
    const cache = mkdtempSync(join(tmpdir(), 'mirror-off-'));
    const server = await spawnHttpServer(['--mirror', 'off'], { ...env, XDG_CACHE_HOME: cache });
    try {
      await pollerPastBaseline(key);
      expect(server.stderr()).toContain('Mirror: off (--mirror off); changes are still read every 1 s for subscriptions.');
      const w = await legacyWatcher({ http: server.url });
      await watchBusinessDay(w, ops, LIMIT_MS);
      await w.close();
      // Only the four lists with events are read (the watcher's reads of records are its own).
      const lists = (await sb.requests(key.key_id)).map((r) => r.path).filter((p) => p.includes('?'));
      expect(lists.length).toBeGreaterThan(8);
      expect(lists.filter((p) => !/^\/api\/v1\/(invoices|payments|quotes|products)\?/.test(p))).toEqual([]);
      expect(readdirSync(cache)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('with SVC_POLL_SECONDS=0 and no webhook secret', () => {
  it('makes no call of its own and offers no subscriptions', async () => {
    const { key, env } = await serverKey();
    const server = await spawnHttpServer([], { ...env, SVC_POLL_SECONDS: '0' });
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
    }
  });
});
