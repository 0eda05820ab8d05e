// Contract: two processes on one store (a file, or a Postgres database) read each missing invoice's lines once
// between them. The one that holds the sync lease fetches lines in the background, newest first; the other
// answers a question that needs every line of the same invoices (a task's whole answer), also newest first.
// Each invoice's detail is asked of the service once, whichever reads it: the other waits for the lines to
// land. The sandbox's request log is the count, and the store ends with every invoice's lines.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/logs.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { mirrorOn } from './books-sync-support.js';

const logs = captureLogs('error');
const SMALL = 2;
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000, today: '2026-11-01' });
});
afterAll(async () => {
  await sb?.close();
});

/** How many times each invoice's detail was asked of the service with this key, by id. */
async function detailReads(keyId: string): Promise<Map<number, number>> {
  const reads = new Map<number, number>();
  for (const r of await sb.requests(keyId)) {
    const id = /^\/api\/v1\/invoices\/(\d+)$/.exec(r.path)?.[1];
    if (r.method === 'GET' && id !== undefined) reads.set(Number(id), (reads.get(Number(id)) ?? 0) + 1);
  }
  return reads;
}

for (const engine of ENGINES) {
  describe(`two processes reading lines (${engine})`, () => {
    const stores = engineStores(engine, 'line_claims');

    it("read each missing invoice's lines once: the syncing one's background and the other's whole answer", async () => {
      const key = await sb.makeKey('live', ALL_SCOPES, SMALL);
      const location = await stores.shared(join(mkdtempSync(join(tmpdir(), 'line-claims-')), 'books.db'));
      const syncing = await mirrorOn(sb, key, logs, { location, identity: 'shared' });
      const other = await mirrorOn(sb, key, logs, { location, identity: 'shared' });
      try {
        // The first reads every kind (so it holds the lease) and starts its lines fetcher; the other, at once,
        // needs every invoice's lines.
        await syncing.mirror.round();
        const answered = other.mirror.books.ensureFresh(['invoices'], { lines: () => ({}), wholeLines: true });
        await Promise.all([answered, syncing.mirror.linesSettled()]);
        expect(syncing.mirror.stats().holder).toBe(true);
        expect(other.mirror.stats().holder).toBe(false);

        const reads = await detailReads(key.key_id);
        const invoices = (await syncing.mirror.store.counts()).invoices;
        expect(invoices).toBeGreaterThan(20);
        expect(reads.size, 'every invoice read').toBe(invoices);
        expect(
          [...reads].filter(([, n]) => n > 1),
          'invoices read more than once',
        ).toEqual([]);
        const coverage = await other.mirror.store.coverage();
        expect(coverage).toMatchObject({ invoices: invoices, withLines: invoices });
      } finally {
        await other.close();
        await syncing.close();
      }
    });
  });
}
