// One key's rate limit, shared by every process on a mirror: a 429 that one process meets holds the key's calls
// in the others too (through the store), so they do not spend the service's patience on calls it would refuse.
// Two mirrors on one store (a file, a Postgres database) stand in for two processes, each with its own client
// of the same key, against a sandbox that allows the key 5 calls a minute.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimited } from '../../src/api/errors.js';
import { captureLogs } from '../support/logs.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { mirrorOn } from './books-sync-support.js';
import { eventually } from './sandbox-http.js';

const logs = captureLogs('error');
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 5 });
});
afterAll(async () => {
  await sb?.close();
});

/** The key's calls of the API proper (sign-in aside) in the sandbox's log. */
const apiCalls = async (keyId: string): Promise<number> => (await sb.requests(keyId)).filter((r) => r.path.startsWith('/api/v1/')).length;

describe.each(ENGINES)('on %s', (engine) => {
  const stores = engineStores(engine, 'books_rate_hold');
  it("a 429 met by one process holds the key's calls in the other, which then calls nothing until it ends", async () => {
    const key = await sb.makeKey('live', ALL_SCOPES, 2);
    const location = await stores.shared(join(mkdtempSync(join(tmpdir(), 'rate-hold-')), 'books.db'));
    // A call that would wait for the window is refused at once, with when to retry.
    const options = { location, identity: 'shared', client: { maxWaitMs: 200 }, mirror: { lookEveryMs: 25 } };
    const a = await mirrorOn(sb, key, logs, options);
    const b = await mirrorOn(sb, key, logs, options);
    try {
      await b.api.session();
      let refused: unknown = null;
      for (let i = 0; i < 10 && refused === null; i++) {
        await a.api.customers.list({ per_page: 1 }, { cache: 'skip' }).catch((err: unknown) => (refused = err));
      }
      expect(refused).toBeInstanceOf(RateLimited);
      const heldA = a.api.stats().rateLimit.blockedUntil;
      expect(heldA).toBeGreaterThan(Date.now());

      // The other process learns it from the store, without a call of its own.
      const calls = await apiCalls(key.key_id);
      await eventually(() => (b.api.stats().rateLimit.blockedUntil >= heldA ? true : undefined), 3000);
      await expect(b.api.customers.list({ per_page: 1 }, { cache: 'skip' })).rejects.toBeInstanceOf(RateLimited);
      expect(await apiCalls(key.key_id)).toBe(calls);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
