// A subscription acknowledged is a subscription that hears, on a Postgres mirror others already share: a
// process is started fresh beside one that holds the mirror and receives the webhooks; a client subscribes on
// the fresh process as soon as it answers (2026-07-28 subscriptions/listen, or 2025-11-25 resources/subscribe,
// in turns), and right after the acknowledgement an invoice is sent at the service, its webhook reaching the
// other process. The fresh process's subscriber hears the invoice updated, and its events feed holds the
// change's entry, every round.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BusinessOps, businessOps } from './support/business-ops.js';
import { legacyWatcher, modernWatcher } from './support/mcp-watchers.js';
import { untilMirror } from './support/mirror-servers.js';
import { spawnHttpProcess } from './support/server.js';
import { heard, type Relay, startRelay, webhookServerEnv } from './support/shared-mirror-events.js';

/** Fresh processes, each era in turn: each missed on the code before the fix (6 of 6 rounds). */
const ROUNDS = 4;
const POLL_MS = 60_000;
const HEAR_WITHIN_MS = 4_000;

let sb: TestSandbox;
let ops: BusinessOps;
let relay: Relay;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000, webhookBackoffMs: 20 });
  ops = await businessOps(sb, 2);
  relay = await startRelay();
});
afterAll(async () => {
  await relay?.close();
  await ops?.close();
  await sb?.close();
});

it(`${ROUNDS} fresh processes on a shared Postgres mirror: a change right after the acknowledgement is heard, with its feed entry`, async () => {
  // Polling once a minute: within the test, changes reach the mirror by the webhook alone.
  const env = await webhookServerEnv(sb, relay, ops.key, 2, POLL_MS);
  const url = await postgresDatabase('listen_acknowledged');
  const holder = await spawnHttpProcess(['--mirror', url], env);
  const missed: string[] = [];
  try {
    relay.to = holder.url.replace(/\/mcp$/, '/webhooks');
    // The first process answers, its mirror opens and takes the lease: the mirror is in use by another.
    const warm = await modernWatcher({ http: holder.url });
    await warm.subscribe(['invoicing://events']);
    await warm.close();
    expect(await untilMirror({ postgres: url }, (r) => r.holder !== null, 10_000), 'the first process holds the lease').not.toBeNull();
    for (let round = 0; round < ROUNDS; round++) {
      const draft = await ops.draftInvoice();
      const uri = `invoicing://invoices/${draft.id}`;
      const fresh = await spawnHttpProcess(['--mirror', url], env);
      const watcher = await (round % 2 === 0 ? modernWatcher : legacyWatcher)({ http: fresh.url });
      try {
        await watcher.subscribe([uri]);
        const since = Date.now();
        await ops.sendInvoice(draft.id);
        const updated = await watcher.updated(uri, since, HEAR_WITHIN_MS).then(
          () => true,
          () => false,
        );
        const entries = await heard(watcher, { kind: 'invoice.sent', record: uri });
        if (!updated || entries !== 1) missed.push(`round ${round + 1} (${watcher.era}): updated ${updated}, feed entries ${entries}`);
      } finally {
        await watcher.close();
        await fresh.close();
      }
    }
  } finally {
    await holder.close();
  }
  expect(missed, `forwarded: ${relay.forwarded.join(', ')}`).toEqual([]);
}, 60_000);
