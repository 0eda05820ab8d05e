// The mirror through crashes: the built server is killed (SIGKILL) ten times at random moments of its first
// sync and of its line fetches, each time started again on the same file. The last start takes over within
// five seconds, and once it is done the file holds exactly what the service's raw API lists: every record of
// every kind, and every invoice's lines. The servers read the sandbox's small second business, each call
// answered after 15 ms as a service across the internet might answer it, so that the sync (a few dozen calls)
// outlasts the ten lives at little cost; every other life is killed once it has stored some lines, so that
// kills land both in the reads of the lists and in the line fetches.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Mirror } from '../../src/books/mirror.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import { mirrorIdentity } from '../../src/store/location.js';
import { inspectMirrorFile } from '../../src/store/sqlite/inspect.js';
import { MIRRORED_KINDS } from '../../src/store/types.js';
import { differences } from '../contract/books-sync-support.js';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { mirrorFileIn, spawnStdioServer } from './support/mirror-servers.js';
import { invoicesWithWrongLines } from './support/stored-lines.js';

/** Each call's delay while the servers are killed. */
const LATENCY_MS = 15;
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
});
afterAll(() => sb?.close());

it('ten kills mid-sync and mid-lines: each restart takes over at once, and the file ends equal to the raw API', async () => {
  const key = await sb.makeKey('live', ALL_SCOPES, 2);
  const cache = mkdtempSync(join(tmpdir(), 'mirror-crashes-'));
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_SECONDS: '1', XDG_CACHE_HOME: cache };
  const moments: string[] = [];
  const folder = join(cache, 'invoicing-mcp');
  await sb.faults(1, ['latency'], LATENCY_MS);
  for (let i = 0; i < 10; i++) {
    const linesBefore = i === 0 ? 0 : await linesStored(folder);
    // Greeted by a client, the server opens its mirror once it has answered and gone quiet.
    const server = spawnStdioServer([], env);
    await syncingBy(folder, server.pid);
    // Every other life ends in its line fetches: once it has stored a line, at a random moment after.
    const intoLines = i % 2 === 1;
    if (intoLines) await linesPast(folder, linesBefore);
    const moment = Math.round(Math.random() * (intoLines ? 60 : 200));
    moments.push(`${moment}${intoLines ? ' (into the lines)' : ''}`);
    await new Promise((r) => setTimeout(r, moment));
    await server.crash();
  }
  await sb.clearFaults();
  const last = spawnStdioServer([], env);
  const session = await signIn(sb.baseUrl, key);
  const truth: Record<string, unknown[]> = {};
  for (const kind of MIRRORED_KINDS) truth[kind] = await listAll(session, `/api/v1/${kind}`);
  const invoices = truth.invoices as { id: number }[];
  const identity = mirrorIdentity(sb.baseUrl, key.key_id);
  const started = Date.now();
  let resumedAfter: number | null = null;
  try {
    // Watch the file from outside until every kind is read and every invoice has its lines.
    const deadline = started + 30_000;
    while (Date.now() < deadline) {
      const store = await openMirrorStore({
        location: { kind: 'file', path: mirrorFileIn(folder), explicit: true },
        identity,
        warn: () => {},
      });
      const marks = await store.marks();
      const newest = Math.max(...[...marks.values()].map((m) => m.syncedMs));
      if (resumedAfter === null && newest >= started) resumedAfter = newest - started;
      const coverage = await store.coverage();
      await store.close();
      if (marks.size === MIRRORED_KINDS.length && coverage.withLines === invoices.length && resumedAfter !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await last.close();
  }
  expect(resumedAfter, `killed at ${moments.join(', ')} ms`).not.toBeNull();
  expect(resumedAfter as number).toBeLessThan(5_000);
  const store = await openMirrorStore({
    location: { kind: 'file', path: mirrorFileIn(folder), explicit: true },
    identity,
    warn: () => {},
  });
  try {
    expect(await differences({ store } as unknown as Mirror, truth as never), `killed at ${moments.join(', ')} ms`).toEqual([]);
    const wrong = await invoicesWithWrongLines(session, invoices, await store.read.lines({}));
    expect(wrong, `killed at ${moments.join(', ')} ms`).toEqual([]);
  } finally {
    await store.close();
  }
}, 60_000);

/** How many invoices have their lines in the mirror file. */
async function linesStored(folder: string): Promise<number> {
  return (await inspectMirrorFile(mirrorFileIn(folder))).coverage?.withLines ?? 0;
}

/** Waits until more than `count` invoices have their lines (the line fetches are under way), or all have. */
async function linesPast(folder: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const coverage = (await inspectMirrorFile(mirrorFileIn(folder)).catch(() => null))?.coverage;
    if (coverage && (coverage.withLines > count || (coverage.invoices > 0 && coverage.withLines === coverage.invoices))) return;
    if (Date.now() > deadline) throw new Error(`no more than ${count} invoices' lines were stored within 10 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until the server of this process id holds the mirror's sync lease: it is syncing. */
async function syncingBy(folder: string, pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    let file: string | null = null;
    try {
      file = mirrorFileIn(folder);
    } catch {
      // Not made yet: look again.
    }
    if (file) {
      const raw = new Database(file, { readonly: true });
      try {
        const row = raw.prepare("SELECT holder FROM lease WHERE name = 'sync'").get() as { holder: string } | undefined;
        if (row?.holder.split('/')[1] === String(pid)) return;
      } catch {
        // The file is being made: look again.
      } finally {
        raw.close();
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the server (process ${pid}) did not take the sync lease within 10 s`);
}
