// One hosted deployment, two server processes on one Postgres: businesses sign in (the sign-in page's forms
// posted to either process, each giving its webhook signing secret), and each one's client, talking to the
// other process, answers its own books (checked against the sandbox's raw API), `report_owed` too, from the
// business's own books mirror. A webhook the first process receives reaches the business's subscriber on the
// second. One key's calls through both processes at once stay within the service's limit with no refusal
// reaching a client. Then the vault key is rotated with the grants kept: restarted with the new key first and
// the old after it, `vault reseal` seals everything again under the new key and every token still works;
// restarted with the new key alone, still, its tenants' mirrors resting when idle (as /readyz says) and
// opening again on next use. Last, no secret of the deployment is in any response the test received
// (refusals included), in either process's log at trace level, or in the database outside the vault.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/events/signature.js';
import { answerOf, receivable, same, type Tally, tally } from '../answers/ground-truth.js';
import { eventually, type Json, listAll, signIn, wrongSecret } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, resealVault, spawnHostedProcess } from './support/hosted.js';
import { deploymentSecrets, dumpTables, ResponseLog, secretsIn, sessionTokensIn } from './support/hosted-leaks.js';
import {
  deliveryTaken,
  draftInvoice,
  owedTruth,
  registerWebhook,
  sendInvoice,
  tenantSchemaOf,
  WEBHOOK_URL,
} from './support/hosted-webhooks.js';
import { modernWatcher } from './support/mcp-watchers.js';
import { MemoryOAuthProvider, oauthClient, type Signer, startFlow } from './support/oauth-client.js';

/** How many businesses sign in: a few in the suite; HOSTED_BUSINESSES=50 for the deployment-sized run. */
const BUSINESSES = Number(process.env.HOSTED_BUSINESSES ?? 6);
const REDIRECT = 'http://127.0.0.1:9/callback';
/** The sandbox's limit (calls a second) while one key's calls are paced across both processes, and how many. */
const PACED_LIMIT = 8;
const PACED_CALLS = 3 * PACED_LIMIT;

let sb: TestSandbox;
let database: string;
let servers: HostedServer[] = [];
/** Every process started, stopped ones too: their logs are scanned at the end. */
const started: HostedServer[] = [];
const oldKey = newVaultKey();
const newKey = newVaultKey();
/** Every response the test's clients received; `recorded` is the fetch they all use. */
const responses = new ResponseLog();
const recorded = responses.wrap();
/** A session token of the service the test itself signed in for: the scan must find it where it is put. */
let ownSessionToken = '';

interface Signed {
  id: number;
  signer: Signer;
  provider: MemoryOAuthProvider;
  lastInvoice: { id: number; number: string; total: string };
  webhookUrl: string;
  /** What the business is owed per currency, summed here from its raw invoices. */
  owed: Map<string, Tally>;
}
const signed: Signed[] = [];

/** The deployment's public URL: the first process's own address the first time, kept across restarts. */
let publicUrl: string | undefined;

/** The deployment's processes, all with the same vault key: two, or one after a restart. */
async function start(vaultKey: string, processes = 2, args: string[] = []): Promise<void> {
  const first = await spawn(vaultKey, publicUrl, args);
  publicUrl = first.url;
  servers = [first];
  if (processes === 2) servers.push(await spawn(vaultKey, publicUrl, args));
}

/** A process logging at trace level, kept for the scan of its log. */
async function spawn(vaultKey: string, url?: string, args: string[] = []): Promise<HostedServer> {
  const server = await spawnHostedProcess({
    sandbox: sb,
    database,
    vaultKey,
    args: ['--log-level', 'trace', ...args],
    ...(url ? { publicUrl: url } : {}),
  });
  started.push(server);
  return server;
}

/** A process's own address for the public URL's path (its forms and endpoints are the deployment's). */
const directly = (server: HostedServer | undefined, url: string): string =>
  new URL(new URL(url).pathname + new URL(url).search, (server as HostedServer).direct).href;

/**
 * Signs a new business in through `via`'s forms, with its webhook: the URL the page shows registered with the
 * sandbox, its signing secret given back to the page. The webhook URL is under the public origin.
 */
async function signInHooked(provider: MemoryOAuthProvider, signer: Signer, businessId: number, via: HostedServer): Promise<string> {
  const flow = await startFlow(publicUrl as string, provider, recorded);
  const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, via.direct, recorded);
  const page = await forms.continueWith(signer);
  const url = /id="webhook_url">([^<]+)</.exec(page)?.[1] as string;
  expect(url).toMatch(WEBHOOK_URL);
  expect(url.startsWith(`${servers[0]?.origin}/webhooks/`)).toBe(true);
  const secret = await registerWebhook(sb, businessId, url);
  await flow.transport.finishAuth(await forms.allow(page, 'read', { webhook_secret: secret }));
  return url;
}

async function stop(): Promise<void> {
  await Promise.all(servers.map((s) => s.close()));
}

/** The business's client through process `n`: its stored token, no sign-in. */
async function answers(business: Signed, n: number): Promise<void> {
  const { client, transport } = oauthClient(servers[n]?.direct as string, business.provider, recorded);
  await client.connect(transport);
  const got = await client.callTool({ name: 'get_invoice', arguments: { id: business.lastInvoice.id } });
  expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
  expect(got.structuredContent).toMatchObject(business.lastInvoice);
  // An answer tool, from the tenant's own books mirror (shared by the processes): its own books' sum.
  const owed = await answerOf(client, 'report_owed');
  expect(owed.currencies.map((c: Json) => c.currency).sort()).toEqual([...business.owed.keys()].sort());
  for (const c of owed.currencies) {
    expect(c.count, c.currency).toBe(business.owed.get(c.currency)?.count);
    expect(same(c.balance, business.owed.get(c.currency)?.sum ?? 'NaN'), `${c.currency} ${c.balance}`).toBe(true);
  }
  await client.close();
}

/** Runs `sql` on the deployment's database; its rows. */
async function onDatabase(sql: string): Promise<Json[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

async function sealedKeyIds(): Promise<string[]> {
  const rows = await onDatabase(
    'SELECT DISTINCT key_id FROM (SELECT key_id FROM invoicing_mcp_hosted.secrets UNION ALL SELECT key_id FROM invoicing_mcp_hosted.oauth) k',
  );
  return rows.map((r) => r.key_id as string);
}

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000, signInLimit: 100_000 });
  database = await postgresDatabase('hosted_processes');
  await start(oldKey);
});

afterAll(async () => {
  await stop();
  await sb?.close();
});

describe('two processes, one deployment', () => {
  it(`signs ${BUSINESSES} businesses in across both processes; each answers its own books through the other`, async () => {
    for (let i = 0; i < BUSINESSES; i++) {
      const made = await sb.admin('POST', '/businesses', {});
      sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
      const signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
      const session = await signIn(sb.baseUrl, { key_id: signer.keyId, secret: signer.secret });
      ownSessionToken = session.token;
      const invoices = await listAll(session, '/api/v1/invoices');
      const last = invoices.at(-1);
      const provider = new MemoryOAuthProvider(REDIRECT, `Assistant ${i}`);
      // Begun at the public URL (the first process), the forms posted to either process in turn.
      const webhookUrl = await signInHooked(provider, signer, made.body.id, servers[(i + 1) % 2] as HostedServer);
      const owed = tally(
        invoices.filter(receivable),
        (inv) => inv.currency,
        (inv) => inv.balance,
      );
      signed.push({
        id: made.body.id,
        signer,
        provider,
        lastInvoice: { id: last.id, number: last.number, total: last.total },
        webhookUrl,
        owed,
      });
    }
    for (const [i, business] of signed.entries()) await answers(business, (i + 1) % 2);
  });

  it("a webhook one process receives reaches the business's subscriber on the other, and its next answer there", async () => {
    const made = await sb.admin('POST', '/businesses', {});
    sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
    const signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
    const provider = new MemoryOAuthProvider(REDIRECT, 'Subscribing assistant');
    // Signed in through the second process; the URL it shows is under the public origin: the first process's.
    const url = await signInHooked(provider, signer, made.body.id, servers[1] as HostedServer);
    const invoice = await draftInvoice(sb, signer);
    const uri = `invoicing://invoices/${invoice}`;
    const authorization = `Bearer ${provider.tokens()?.access_token}`;
    const watcher = await modernWatcher({ http: servers[1]?.direct as string, headers: { authorization }, wrap: (f) => responses.wrap(f) });
    try {
      await watcher.subscribe([uri]);
      const since = Date.now();
      await sendInvoice(sb, made.body.id, invoice);
      await watcher.updated(uri, since, 10_000);
      await deliveryTaken(sb, url);
    } finally {
      await watcher.close();
    }
    const { client, transport } = oauthClient(servers[1]?.direct as string, provider, recorded);
    await client.connect(transport);
    const owed = await answerOf(client, 'report_owed');
    const truth = await owedTruth(sb, signer);
    for (const c of owed.currencies) expect(same(c.balance, truth.get(c.currency)?.sum ?? 'NaN'), `${c.currency} ${c.balance}`).toBe(true);
    expect(owed.currencies.length).toBe(truth.size);
    await client.close();
  });

  it('refuses a client without a token, a made-up token or code, a mistyped secret, a forged webhook', async () => {
    await refusals(servers[0] as HostedServer, signed[0] as Signed);
  });

  it("paces one key's calls across both processes within the service's limit: no refusal reaches a client", async () => {
    const business = signed[0] as Signed;
    const invoices = (
      await listAll(await signIn(sb.baseUrl, { key_id: business.signer.keyId, secret: business.signer.secret }), '/api/v1/invoices')
    ).slice(-PACED_CALLS - 1, -1);
    const clients = await Promise.all(
      (servers as HostedServer[]).map(async (server) => {
        const { client, transport } = oauthClient(server.direct, business.provider, recorded);
        await client.connect(transport);
        return client;
      }),
    );
    const since = (await sb.clock()).now;
    await sb.admin('PUT', '/rate-limit', { limit: PACED_LIMIT, window_seconds: 1 });
    try {
      // Three windows' worth of calls at once, half through each process, each for an invoice not yet read
      // (the last one was, and may be kept).
      const got = await Promise.all(
        invoices.map((inv, i) => clients[i % 2]?.callTool({ name: 'get_invoice', arguments: { id: inv.id } }) as Promise<Json>),
      );
      for (const [i, inv] of invoices.entries()) {
        expect(got[i].isError, JSON.stringify(got[i].content)).toBeFalsy();
        expect(got[i].structuredContent).toMatchObject({ id: inv.id, number: inv.number, total: inv.total });
      }
    } finally {
      await sb.admin('PUT', '/rate-limit', { limit: 1_000_000, window_seconds: 60 });
      await Promise.all(clients.map((c) => c.close()));
    }
    const calls = (await sb.requests(business.signer.keyId)).filter((e) => e.at >= since && e.path.startsWith('/api/v1/invoices/'));
    // The limit was met (the service refused some calls), yet every call answered: the refusals were waited out.
    expect(calls.filter((e) => e.status === 429).length).toBeGreaterThan(0);
    expect(calls.filter((e) => e.status === 200)).toHaveLength(PACED_CALLS);
  });

  it('rotates the vault key without losing a grant: new key first, then the new key alone', async () => {
    const oldIds = await sealedKeyIds();
    expect(oldIds).toHaveLength(1);
    await stop();
    await start(`${newKey},${oldKey}`, 1);
    // Nothing is sealed again at a start: the operator reseals once every process has the new key.
    expect(await sealedKeyIds()).toEqual(oldIds);
    expect((await resealVault(database, `${newKey},${oldKey}`)).code).toBe(0);
    const rotated = await sealedKeyIds();
    expect(rotated).toHaveLength(1);
    expect(rotated).not.toEqual(oldIds);
    for (const business of signed) await answers(business, 0);
    // A token is for the deployment's public URL: a server of another URL refuses it.
    const elsewhere = await spawn(newKey);
    const refused = await recorded(elsewhere.direct, {
      method: 'POST',
      headers: { authorization: `Bearer ${signed[0]?.provider.tokens()?.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    await elsewhere.close();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('not issued for this resource');
    await stop();
    // Its tenants idle at once once their clients leave: each business's mirror rests after its answers.
    await start(newKey, 1, ['--tenant-idle-minutes', '0']);
    for (const business of signed) await answers(business, 0);
  });

  it("reports its tenants' mirrors in /readyz, naming none; an idle tenant's mirror rests and opens again on next use", async () => {
    const server = servers[0] as HostedServer;
    const rested = await eventually(async () => {
      const body = await readyz(server);
      return body.tenants.mirrors.resting === signed.length ? body : undefined;
    });
    expect(rested).toEqual({
      status: 'ready',
      database: 'reachable',
      tenants: { count: signed.length, mirrors: { resting: signed.length }, storesNotAnswering: 0 },
    });
    expect(server.stderr().match(/books mirror rests/g)?.length).toBeGreaterThanOrEqual(signed.length);
    // Opened again by an answer, which still equals the business's own books (answers() checks them).
    await answers(signed[0] as Signed, 0);
    await restingAll(server);
    // A subscriber's open stream is a request in flight: the mirror it opened stays open under it, and rests
    // once the subscriber leaves.
    const business = signed[1] as Signed;
    const authorization = `Bearer ${business.provider.tokens()?.access_token}`;
    const watcher = await modernWatcher({ http: server.direct, headers: { authorization }, wrap: (f) => responses.wrap(f) });
    try {
      await watcher.subscribe([`invoicing://invoices/${business.lastInvoice.id}`]);
      expect((await readyz(server)).tenants.mirrors).toEqual({ open: 1, resting: signed.length - 1 });
      // Its store stops answering (its events table is away): not ready, and still nothing named.
      await onDatabase(`ALTER TABLE ${tenantSchemaOf(sb.baseUrl, business.signer.keyId)}.events RENAME TO events_away`);
      try {
        expect((await readyz(server, 503)).tenants).toEqual({
          count: signed.length,
          mirrors: { open: 1, resting: signed.length - 1 },
          storesNotAnswering: 1,
        });
      } finally {
        await onDatabase(`ALTER TABLE ${tenantSchemaOf(sb.baseUrl, business.signer.keyId)}.events_away RENAME TO events`);
      }
      expect((await readyz(server)).tenants.storesNotAnswering).toBe(0);
    } finally {
      await watcher.close();
    }
    await restingAll(server);
  });

  it("holds no secret in any response (refusals too), in either process's log at trace level, or outside the vault", async () => {
    const secrets = await deploymentSecrets(sb, `${newKey},${oldKey}`);
    secrets.literals.push(oldKey, newKey);
    // The deployment signed each business in at its page and for its client, in each process it served from.
    expect(secrets.sessions.size).toBeGreaterThan(3 * BUSINESSES);
    expect(sessionTokensIn(`token: ${ownSessionToken}.`, secrets.sessions)).toHaveLength(1);
    const said = responses.text();
    expect(responses.count).toBeGreaterThan(20 * BUSINESSES);
    expect(said).toContain('Wrong key ID or secret');
    expect(secretsIn(said, secrets, 'response')).toEqual([]);
    const tokens = signed
      .flatMap((b) => [b.provider.tokens()?.access_token, b.provider.tokens()?.refresh_token])
      .filter((t): t is string => !!t);
    expect(tokens).toHaveLength(2 * BUSINESSES);
    // Every process logged at trace level but the one of another URL, which only refused a token.
    expect(started.filter((server) => server.stderr().includes('"level":10'))).toHaveLength(started.length - 1);
    for (const server of started) expect(secretsIn(server.stderr(), secrets, 'log', tokens)).toEqual([]);
    const dump = await dumpTables(database);
    expect(dump).toContain(signed[0]?.signer.keyId);
    expect(secretsIn(dump, secrets, 'log', tokens)).toEqual([]);
  });
});

/**
 * What a client is told when refused, through `server`: no token, a token of no one, a code of no one at the
 * token endpoint, a mistyped secret on the sign-in page, a forged webhook, an invoice the books lack (as a
 * tool and as a resource).
 */
async function refusals(server: HostedServer, business: Signed): Promise<void> {
  const listTools = (headers: Record<string, string>) =>
    recorded(server.direct, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  expect((await listTools({})).status).toBe(401);
  expect((await listTools({ authorization: 'Bearer no-such-token' })).status).toBe(401);
  const code = await recorded(directly(server, `${server.origin}/oauth/token`), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'no-such-code',
      redirect_uri: REDIRECT,
      code_verifier: 'v'.repeat(43),
      client_id: business.provider.clientInformation()?.client_id as string,
    }).toString(),
  });
  expect(code.status).toBe(400);
  const provider = new MemoryOAuthProvider(REDIRECT, 'Mistyping assistant');
  await startFlow(server.direct, provider, recorded);
  const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, server.direct, recorded);
  const mistyped = await forms.continueWith({ keyId: business.signer.keyId, secret: wrongSecret(business.signer.secret) });
  expect(mistyped).toContain('Wrong key ID or secret');
  const forged = await recorded(directly(server, business.webhookUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signPayload('not-the-signing-secret', Math.floor(Date.now() / 1000), '{}'),
    },
    body: '{}',
  });
  expect(forged.status).toBe(400);
  const { client, transport } = oauthClient(server.direct, business.provider, recorded);
  await client.connect(transport);
  const missing = await client.callTool({ name: 'get_invoice', arguments: { id: 987_654 } });
  expect(missing.isError).toBe(true);
  // A resource, and one the books lack.
  const read = await client.readResource({ uri: `invoicing://invoices/${business.lastInvoice.id}` });
  expect(JSON.stringify(read.contents)).toContain(business.lastInvoice.number);
  expect(await client.readResource({ uri: 'invoicing://invoices/987654' }).then(() => 'read', String)).toMatch(/987654|not found/i);
  await client.close();
  // Every tenant that answered through it has its mirror open (idle for far less than the default 30 minutes).
  const ready = await readyz(server);
  expect(ready.status).toBe('ready');
  expect(ready.tenants.mirrors.open).toBeGreaterThan(0);
  expect(ready.tenants.storesNotAnswering).toBe(0);
}

/** Waits until every signed-in business's mirror rests in the process. */
async function restingAll(server: HostedServer): Promise<void> {
  await eventually(async () => ((await readyz(server)).tenants.mirrors.resting === signed.length ? true : undefined));
}

/** The process's readiness: `status` (ready: 200), and nothing in it names a business, a key or a tenant's schema. */
async function readyz(server: HostedServer, status = 200): Promise<Json> {
  const res = await recorded(directly(server, `${server.origin}/readyz`));
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(text).not.toMatch(/svck_|invoicing_mcp_k_|Ltd/);
  return JSON.parse(text);
}
