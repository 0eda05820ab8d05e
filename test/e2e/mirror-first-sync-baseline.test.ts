// A subscription on a fresh desktop server hears the change it was made for, even when the books mirror's
// first read has not begun yet: a client reads invoicing://invoices/N (sent), subscribes, and the invoice is
// paid at the service before the mirror's first read of invoices. The mirror's baseline must not be newer than
// what the client was shown, so its first read announces the payment. The race is made certain, not left to
// chance: the payment lands before the mirror starts (it waits for the server to go quiet), and the
// service's clock is then moved on, so the first read begins well after the payment. Both protocol eras,
// each a few times, on a SQLite mirror polling (no webhook).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BusinessOps, businessOps } from './support/business-ops.js';
import { type Era, legacyWatcher, modernWatcher } from './support/mcp-watchers.js';
import { keyEnv, spawnHttpServer } from './support/server.js';

const ROUNDS = 3;

let sb: TestSandbox;
let ops: BusinessOps;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
  ops = await businessOps(sb, 1);
});
afterAll(async () => {
  await ops?.close();
  await sb?.close();
});

describe.each(['legacy', 'modern'] as Era[])('a %s subscriber', (era) => {
  it.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))('hears of a payment made before the first sync began (round %i)', async () => {
    const draft = await ops.draftInvoice();
    await ops.sendInvoice(draft.id);
    // The sending is well before the server starts: only the payment is news.
    await sb.advanceClock(10);
    const server = await spawnHttpServer(['--mirror', 'memory'], {
      ...keyEnv(sb, ops.key),
      SVC_POLL_SECONDS: '1',
      SVC_POLL_MS: '200',
    });
    const uri = `invoicing://invoices/${draft.id}`;
    const watcher = await (era === 'modern' ? modernWatcher : legacyWatcher)({ http: server.url });
    try {
      expect((await watcher.readJson(uri)).status).toBe('sent');
      await watcher.subscribe([uri]);
      const since = Date.now();
      await ops.pay(draft.id, draft.total);
      await sb.advanceClock(5);
      await watcher.updated(uri, since, 8_000);
      expect((await watcher.readJson(uri)).status).toBe('paid');
    } finally {
      await watcher.close();
      await server.close();
    }
  });
});
