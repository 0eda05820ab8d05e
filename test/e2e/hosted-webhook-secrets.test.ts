// Two hosted processes on one database keep each endpoint's signing secret in memory once a delivery has read
// it; a secret replaced or forgotten through the other process, or by any writer of the database, stops
// verifying as soon as the database's notice arrives, and so does every secret kept while the process's
// notifying connection is lost (what changed meanwhile went unheard); a change whose notice never comes (a
// connection dead without a word) is bounded by the time a secret is kept, on the processes' clock, moved here.
// The deliveries are signed here, of a kind the receiver acknowledges without acting on (204 once the signature
// holds, 400 when it does not), posted to the second process.
//
// A notice reaches the other process over its own connection, a moment after the change's commit: a delivery
// that overtakes it still verifies. So a change is awaited for NOTICE_BOUND_MS of the real clock, far below the
// 30 s a secret is kept without a word, which is what the same checks would wait for without the notices.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Serving } from '../../src/cli/serve-in-process.js';
import { WEBHOOK_TARGET_TTL_MS } from '../../src/hosted/tenants/tenants.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { hostedArgs, newVaultKey } from './support/hosted.js';
import { MemoryOAuthProvider, type Signer, startFlow } from './support/oauth-client.js';
import { freePort, serverEnv } from './support/server.js';
import { postSignedEvent } from './support/signed-delivery.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const quiet = { stderr: () => undefined, logDestination: { write: () => undefined } };
const newSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;

let sb: TestSandbox;
let database: string;
const servers: Serving[] = [];
/** The first process's /mcp (the deployment's public URL) and the second's own origin. */
let publicUrl = '';
let second = '';
let signer: Signer;
/** The business's webhook path, as the sign-in page shows it. */
let hookPath = '';
/** How far the processes' clock (their tenants' and kept endpoints') is ahead of the real one. */
let skippedMs = 0;

/** Signs the business in through the first process's forms, giving `secret` as its webhook signing secret. */
async function signInWith(secret: string): Promise<void> {
  const provider = new MemoryOAuthProvider(REDIRECT, 'Webhook secrets');
  const flow = await startFlow(publicUrl, provider);
  const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, new URL(publicUrl).origin);
  const page = await forms.continueWith(signer);
  hookPath = new URL(/id="webhook_url">([^<]+)</.exec(page)?.[1] as string).pathname;
  await flow.transport.finishAuth(await forms.allow(page, 'read', { webhook_secret: secret }));
}

/** How long a change heard through the database may take to reach the second process, on the real clock. */
const NOTICE_BOUND_MS = 5_000;

/** A delivery to the second process signed with `secret`; its status. */
const deliver = (secret: string): Promise<number> => postSignedEvent(`${second}${hookPath}`, secret, 'test.ping', {});

/** Delivers with `secret` until it is refused (its status) or NOTICE_BOUND_MS have passed (then 204). */
async function refusedSoon(secret: string): Promise<number> {
  const until = Date.now() + NOTICE_BOUND_MS;
  for (;;) {
    const status = await deliver(secret);
    if (status !== 204 || Date.now() > until) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function onDatabase(sql: string, args: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    await client.query(sql, args);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  sb = await startTestSandbox();
  database = await postgresDatabase('webhook_secrets');
  const { hostedInProcess } = await import('../../src/cli/serve-in-process.js');
  const env = serverEnv({ SVC_BASE_URL: sb.baseUrl, INVOICING_MCP_VAULT_KEY: newVaultKey() });
  const [portA, portB] = [await freePort(), await freePort()];
  publicUrl = `http://127.0.0.1:${portA}/mcp`;
  second = `http://127.0.0.1:${portB}`;
  const io = { ...quiet, now: () => Date.now() + skippedMs };
  servers.push(await hostedInProcess(hostedArgs(portA, publicUrl, database), env, io));
  servers.push(await hostedInProcess(hostedArgs(portB, publicUrl, database), env, io));
  const made = await sb.admin('POST', '/businesses', {});
  sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
  signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await sb?.close();
});

describe("a hosted endpoint's signing secret, kept in memory", () => {
  it('stops verifying in the other process once told, when replaced or forgotten', async () => {
    const [first, replaced] = [newSecret(), newSecret()];
    await signInWith(first);
    // Read once, then kept: both verify with it.
    expect(await deliver(first)).toBe(204);
    expect(await deliver(first)).toBe(204);
    expect(await deliver(replaced)).toBe(400);
    // Replaced through the first process: the second refuses the old one once the notice has come.
    await signInWith(replaced);
    expect(await refusedSoon(first)).toBe(400);
    expect(await deliver(replaced)).toBe(204);
    expect(await deliver(replaced)).toBe(204);
    // Forgotten by another writer of the database (as a key that stopped working is): refused once told.
    await onDatabase("DELETE FROM invoicing_mcp_hosted.secrets WHERE name LIKE 'webhook:%'");
    expect(await refusedSoon(replaced)).toBe(400);
  });

  it('is kept no longer than its time when a change is never heard of', async () => {
    const secret = newSecret();
    await signInWith(secret);
    expect(await deliver(secret)).toBe(204);
    expect(await deliver(secret)).toBe(204);
    // The database forgets the secret and says nothing (its notice switched off for this change alone), as when
    // the notifying connection died with no word from its socket: the kept secret holds for its time, then not.
    await onDatabase(`BEGIN;
      ALTER TABLE invoicing_mcp_hosted.secrets DISABLE TRIGGER webhook_secret_gone;
      DELETE FROM invoicing_mcp_hosted.secrets WHERE name LIKE 'webhook:%';
      ALTER TABLE invoicing_mcp_hosted.secrets ENABLE TRIGGER webhook_secret_gone;
      COMMIT`);
    expect(await deliver(secret)).toBe(204);
    // The time counts from the delivery that read it, a moment of the real clock ago: 10 s spare for that.
    skippedMs += WEBHOOK_TARGET_TTL_MS - 10_000;
    expect(await deliver(secret)).toBe(204);
    skippedMs += 12_000;
    expect(await deliver(secret)).toBe(400);
  });

  it('is not trusted while the connection that hears of changes is lost', async () => {
    const secret = newSecret();
    await signInWith(secret);
    expect(await deliver(secret)).toBe(204);
    expect(await deliver(secret)).toBe(204);
    // The database takes no new connection, every connection of the processes is cut, and the secret is
    // forgotten: the notice goes unheard, and while the connection stays lost the kept secret is not trusted.
    // (Once connections are taken again, the connection made again says so: refused as unknown.)
    const server = new URL(database);
    const name = server.pathname.slice(1);
    server.pathname = '/postgres';
    const [own, admin] = [new pg.Client({ connectionString: database }), new pg.Client({ connectionString: server.toString() })];
    await Promise.all([own.connect(), admin.connect()]);
    try {
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await own.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await own.query("DELETE FROM invoicing_mcp_hosted.secrets WHERE name LIKE 'webhook:%'");
      expect(await refusedSoon(secret)).not.toBe(204);
    } finally {
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
      await Promise.all([own.end(), admin.end()]);
    }
    expect(await refusedSoon(secret)).toBe(400);
  });
});
