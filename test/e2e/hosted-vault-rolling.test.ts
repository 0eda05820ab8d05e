// Rotating the vault key as a rolling deploy does it: process A still on the old key, process B started with
// "NEW,OLD", both serving one deployment. Nothing is sealed again until the operator runs
// `invoicing-mcp vault reseal`, so A goes on answering tool calls and refreshing its grants. A record B sealed
// under the new key, met by A which lacks it, is a 503 with Retry-After and a log line naming the key's
// fingerprint (never the key), not a 500. After the reseal, A restarted with the new key alone serves every
// grant, refreshes included.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/events/signature.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn, signInByForms } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, resealVault, startHostedServer } from './support/hosted.js';
import { registerWebhook } from './support/hosted-webhooks.js';
import { MemoryOAuthProvider, oauthClient, type Signer, startFlow } from './support/oauth-client.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const OLD = newVaultKey();
const NEW = newVaultKey();
/** A vault key's fingerprint, as the server names it (vault-keys.ts), worked out here from the key's bytes. */
const fingerprint = (key: string): string =>
  createHash('sha256').update('invoicing-mcp vault key id\n').update(Buffer.from(key, 'base64')).digest('base64url').slice(0, 12);

let sb: TestSandbox;
let database: string;
let publicUrl: string;
const running: HostedServer[] = [];

async function start(vaultKey: string, publicAt?: string): Promise<HostedServer> {
  const server = await startHostedServer({ sandbox: sb, database, vaultKey, ...(publicAt ? { publicUrl: publicAt } : {}) });
  running.push(server);
  return server;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  database = await postgresDatabase('hosted_vault_rolling');
});
afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
  await sb?.close();
});

/** A fetch that takes the deployment's public origin to `server` (a balancer sending this client there). */
function through(server: HostedServer): typeof fetch {
  const origin = new URL(publicUrl).origin;
  const direct = new URL(server.direct).origin;
  return (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    return fetch(url.startsWith(origin) ? direct + url.slice(origin.length) : url, init);
  };
}

async function signIn(signer: Signer, server: HostedServer): Promise<MemoryOAuthProvider> {
  const provider = new MemoryOAuthProvider(REDIRECT, signer.keyId);
  const via = through(server);
  const flow = await startFlow(publicUrl, provider, via);
  await flow.transport.finishAuth(await signInByForms(provider.authorizationUrl as URL, REDIRECT, signer, server.direct, via));
  return provider;
}

/** A tool call of the grant through `server`, answered with the business's customers. */
async function answers(provider: MemoryOAuthProvider, server: HostedServer): Promise<void> {
  const { client, transport } = oauthClient(publicUrl, provider, through(server));
  await client.connect(transport);
  const listed = await client.callTool({ name: 'list_customers', arguments: { per_page: 2 } });
  expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
  expect((listed.structuredContent as { data: unknown[] }).data.length).toBe(2);
  await client.close();
}

/** The grant's refresh token used at `server`'s token endpoint; the new tokens kept on success. */
async function refresh(provider: MemoryOAuthProvider, server: HostedServer): Promise<Response> {
  const fields = {
    grant_type: 'refresh_token',
    refresh_token: String(provider.tokens()?.refresh_token),
    client_id: String(provider.clientInformation()?.client_id),
    resource: publicUrl,
  };
  const res = await fetch(new URL('/oauth/token', server.direct), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  if (res.status === 200) provider.saveTokens((await res.clone().json()) as never);
  return res;
}

/** A request of the grant's token straight to `server`'s /mcp. */
async function rawCall(provider: MemoryOAuthProvider, server: HostedServer): Promise<Response> {
  const res = await fetch(server.direct, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${provider.tokens()?.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.clone().text();
  return res;
}

async function sealedUnder(): Promise<string[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT DISTINCT key_id FROM (SELECT key_id FROM invoicing_mcp_hosted.secrets UNION ALL SELECT key_id FROM invoicing_mcp_hosted.oauth) k',
    );
    return rows.map((r) => r.key_id as string).sort();
  } finally {
    await client.end();
  }
}

const missingKeyLine = (server: HostedServer, key: string): boolean =>
  server.stderr().includes(`sealed with vault key ${fingerprint(key)}, which this process was not given`);

describe('a rolling rotation of the vault key', () => {
  let a: HostedServer;
  let b: HostedServer;
  let x: MemoryOAuthProvider;
  let y: MemoryOAuthProvider;
  beforeAll(async () => {
    a = await start(OLD);
    publicUrl = a.url;
  });

  it('A on the old key keeps answering and refreshing while B, given both, serves the same grants and reseals nothing', async () => {
    const xKey = await sb.makeKey('test');
    x = await signIn({ keyId: xKey.key_id, secret: xKey.secret }, a);
    await answers(x, a);
    b = await start(`${NEW},${OLD}`, publicUrl);
    // B sealed nothing again at its start, and reads what A sealed.
    expect(await sealedUnder()).toEqual([fingerprint(OLD)]);
    await answers(x, b);
    // A keeps answering, and refreshing its grant, after B served the same records.
    await answers(x, a);
    expect((await refresh(x, a)).status).toBe(200);
    await answers(x, a);
    expect(await sealedUnder()).toEqual([fingerprint(OLD)]);
  });

  it('a record sealed under a key A lacks is a 503 with Retry-After at A, and its log names the key by fingerprint only', async () => {
    // A business signed in through B, with its webhook: its records are sealed under the new key, which A lacks.
    const yKey = await sb.makeKey('test');
    y = new MemoryOAuthProvider(REDIRECT, yKey.key_id);
    const flow = await startFlow(publicUrl, y, through(b));
    const forms = await openSignIn(y.authorizationUrl as URL, REDIRECT, b.direct, through(b));
    const page = await forms.continueWith({ keyId: yKey.key_id, secret: yKey.secret });
    const hook = /id="webhook_url">([^<]+)</.exec(page)?.[1] as string;
    const signing = await registerWebhook(sb, 1, hook);
    await flow.transport.finishAuth(await forms.allow(page, 'read', { webhook_secret: signing }));
    await answers(y, b);
    const body = JSON.stringify({ id: 'evt_rolling_1', event: 'invoice.sent', data: { invoice: { id: 1 } } });
    const delivery = await fetch(new URL(new URL(hook).pathname, a.direct), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(signing, Math.floor(Date.now() / 1000), body) },
      body,
    });
    expect(delivery.status).toBe(503);
    expect(delivery.headers.get('retry-after')).toMatch(/^\d+$/);
    const lacking = await rawCall(y, a);
    expect(lacking.status).toBe(503);
    expect(lacking.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await lacking.text()).toMatch(/try again/);
    const refreshLacking = await refresh(y, a);
    expect(refreshLacking.status).toBe(503);
    expect(refreshLacking.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(missingKeyLine(a, NEW)).toBe(true);
    for (const secret of [OLD, NEW, signing, yKey.secret]) expect(a.stderr() + b.stderr()).not.toContain(secret);
  });

  it('after vault reseal everything is under the new key, and A restarted with it alone serves and refreshes every grant', async () => {
    const resealed = await resealVault(database, `${NEW},${OLD}`);
    expect(resealed.code, resealed.stderr).toBe(0);
    expect(resealed.stdout).toMatch(/sealed [1-9]\d* stored secrets and [1-9]\d* authorization records again under vault key/);
    expect(resealed.stdout).toContain(fingerprint(NEW));
    expect(await sealedUnder()).toEqual([fingerprint(NEW)]);
    // A, still on the old key alone, cannot open what was resealed (what it holds in memory it still serves).
    expect((await refresh(x, a)).status).toBe(503);
    await a.close();
    const a2 = await start(NEW, publicUrl);
    for (const grant of [x, y]) {
      for (const server of [a2, b]) await answers(grant, server);
      expect((await refresh(grant, a2)).status).toBe(200);
      await answers(grant, b);
    }
    expect(missingKeyLine(a2, OLD) || missingKeyLine(a2, NEW)).toBe(false);
    for (const key of [OLD, NEW]) expect(a2.stderr() + b.stderr() + resealed.stdout + resealed.stderr).not.toContain(key);
  });
});
