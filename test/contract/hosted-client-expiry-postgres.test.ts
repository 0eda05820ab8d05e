// Registered clients expire on a real Postgres (src/hosted/oauth/adapter.ts), on an injected clock: one that
// never got a grant is not found 24 hours after it registered, one with a grant until 30 days after the
// grant's expiry (a later grant moves it on, an earlier one never back); the sweep removes expired rows in
// batches of the size it is given, so what anyone registers does not stay.
import { randomBytes } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_LIFETIMES, postgresAdapter, sweepExpired } from '../../src/hosted/oauth/adapter.js';
import { SWEEP, sweepEvery } from '../../src/hosted/oauth/sweep.js';
import { prepareHostedSchema } from '../../src/hosted/store/schema.js';
import { Sealer } from '../../src/hosted/vault/sealer.js';
import { readVaultKeys } from '../../src/hosted/vault/vault-keys.js';
import { silentLogger } from '../../src/log/logger.js';
import { PgDb } from '../../src/store/postgres/db.js';
import { postgresDatabase } from '../support/postgres.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRANT_SECONDS = 30 * 24 * 3600;

let db: PgDb;
let clock = Date.UTC(2026, 0, 1);
let adapterOf: ReturnType<typeof postgresAdapter>;

beforeAll(async () => {
  db = new PgDb(await postgresDatabase('hosted_client_expiry'));
  await prepareHostedSchema(db);
  adapterOf = postgresAdapter(db, new Sealer(readVaultKeys(randomBytes(32).toString('base64'))), { grantEnded: () => {} }, () => clock);
});

afterAll(async () => {
  await db?.close();
});

const newId = (): string => randomBytes(12).toString('base64url');

async function register(): Promise<string> {
  const clientId = newId();
  await adapterOf('Client').upsert(clientId, { client_id: clientId, redirect_uris: ['http://127.0.0.1:9/cb'] } as AdapterPayload);
  return clientId;
}

async function grantTo(clientId: string): Promise<void> {
  await adapterOf('Grant').upsert(newId(), { clientId, accountId: 'k' } as AdapterPayload, GRANT_SECONDS);
}

const found = async (clientId: string): Promise<boolean> => (await adapterOf('Client').find(clientId)) !== undefined;
const clientRows = async (): Promise<number> =>
  Number(await db.value(`SELECT count(*) FROM invoicing_mcp_hosted.oauth WHERE model = 'Client'`));

describe('registered clients expire', () => {
  it('one that never got a grant: found for 24 hours, then not, and swept', async () => {
    const clientId = await register();
    const before = await clientRows();
    clock += CLIENT_LIFETIMES.unused - 1_000;
    expect(await found(clientId)).toBe(true);
    clock += 2_000;
    expect(await found(clientId)).toBe(false);
    expect(await sweepExpired(db, clock, 1_000)).toBeGreaterThanOrEqual(1);
    expect(await clientRows()).toBe(before - 1);
  });

  it('one with grants: until 30 days after its last grant expires, a later grant moving it on', async () => {
    const clientId = await register();
    const start = clock;
    clock += HOUR;
    await grantTo(clientId);
    clock = start + 10 * DAY;
    await grantTo(clientId); // expires at start + 40 days: the client lives to start + 70 days
    clock = start + 20 * DAY;
    expect(await found(clientId)).toBe(true);
    clock = start + 70 * DAY - 1_000;
    await sweepExpired(db, clock, 1_000); // the grants themselves, expired
    expect(await found(clientId)).toBe(true);
    clock = start + 70 * DAY + 1_000;
    expect(await found(clientId)).toBe(false);
  });

  it('the sweep removes at most the batch it is given, the rest at the next', async () => {
    await sweepExpired(db, clock + 1_000 * DAY, 100_000);
    const before = await clientRows();
    for (let i = 0; i < 5; i++) await register();
    clock += CLIENT_LIFETIMES.unused + 1_000;
    expect(await sweepExpired(db, clock, 3)).toBe(3);
    expect(await clientRows()).toBe(before + 2);
    expect(await sweepExpired(db, clock, 3)).toBe(2);
    expect(await clientRows()).toBe(before);
  });

  it('a deployment sweeps at start and every five minutes, until it stops', async () => {
    const timers: { fn: () => void; ms: number }[] = [];
    const cleared: unknown[] = [];
    const fake = {
      set: (fn: () => void, ms: number) => {
        const timer = { fn, ms };
        timers.push(timer);
        return timer;
      },
      clear: (handle: unknown) => void cleared.push(handle),
    };
    const scheduled = async (n: number) => {
      while (timers.length < n) await new Promise((resolve) => setImmediate(resolve));
    };
    await register();
    clock += CLIENT_LIFETIMES.unused + 1_000;
    const sweeping = sweepEvery(db, { now: () => clock, timers: fake, logger: silentLogger() });
    await scheduled(1);
    expect(await clientRows()).toBe(0);
    expect(timers[0]?.ms).toBe(SWEEP.everyMs);
    await register();
    clock += CLIENT_LIFETIMES.unused + 1_000;
    timers[0]?.fn();
    await scheduled(2);
    expect(await clientRows()).toBe(0);
    sweeping.stop();
    expect(cleared).toEqual([timers[1]]);
  });
});
