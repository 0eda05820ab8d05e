// A mirror's store whose Postgres is killed (SIGKILL, with its backends) and started again, on a Postgres of
// the test's own: the session connection is made again (after the wait the test gives, not real seconds),
// listens again, and the outbox publishes each event once: the one written before, the ones another store
// wrote while this one's session was still away (read from the events table when it is back), and the ones
// written after (told by NOTIFY). Nothing is published twice, and no error of the database escapes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openMirrorStore } from '../../src/books/open-store.js';
import { EventOutbox } from '../../src/books/outbox.js';
import { createEventBus } from '../../src/events/bus.js';
import { silentLogger } from '../../src/log/logger.js';
import { SharedPostgres } from '../../src/store/postgres/shared.js';
import type { MirrorStore } from '../../src/store/store.js';
import { freePort } from '../e2e/support/server.js';
import { type KillablePostgres, startKillablePostgres } from '../support/postgres-server.js';
import { pollEvent } from './poll-event.js';
import { eventually } from './sandbox-http.js';

const identity = 'https://books.example|svck_live_reconnect';
/** The session's wait before it tries again: long enough that the other store writes first. */
const AWAY_MS = 300;
/** The outbox's own look at the store: never within the test, so only the reconnection and NOTIFY publish. */
const NEVER_MS = 600_000;

const event = pollEvent;

let folder: string;
let postgres: KillablePostgres;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'pg-reconnect-'));
  postgres = await startKillablePostgres(folder, await freePort(), randomBytes(12).toString('hex'), []);
});
afterAll(async () => {
  await postgres?.stop();
  rmSync(folder, { recursive: true, force: true });
});

it('after Postgres is killed and back: the session listens again and each event is published once', async () => {
  const open = (shared?: SharedPostgres): Promise<MirrorStore> =>
    openMirrorStore({ location: { kind: 'postgres', url: postgres.url }, identity, warn: () => {}, ...(shared ? { shared } : {}) });
  const writer = await open();
  const attempts: number[] = [];
  const shared = new SharedPostgres(postgres.url, (attempt) => {
    attempts.push(attempt);
    return AWAY_MS;
  });
  const reader = await open(shared);
  const bus = createEventBus({ invalidate: () => undefined });
  const heard: string[] = [];
  bus.listen((e) => void heard.push(e.id));
  const outbox = new EventOutbox(reader, bus, silentLogger(), NEVER_MS);
  try {
    await outbox.start();
    await writer.write('invoices', [], [event(1)]);
    await eventually(() => (heard.length === 1 ? true : undefined), 2_000);

    await postgres.kill();
    await postgres.restart();
    // The writer's pool connects again at its next query; the reader's session is still waiting to.
    await writer.write('invoices', [], [event(2)]);
    await writer.write('invoices', [], [event(3)]);
    await eventually(() => (heard.length === 3 ? true : undefined), 3_000);
    await writer.write('invoices', [], [event(4)]);
    await eventually(() => (heard.length === 4 ? true : undefined), 2_000);
    await outbox.drain();
    expect(heard).toEqual(['poll_1', 'poll_2', 'poll_3', 'poll_4']);
    expect(attempts[0]).toBe(1);
  } finally {
    await outbox.stop();
    await reader.close();
    await shared.close();
    await writer.close();
  }
});
