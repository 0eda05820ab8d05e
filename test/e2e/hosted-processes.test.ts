// One hosted deployment, two server processes on one Postgres: businesses sign in (the sign-in page's forms
// posted to either process), and each one's client, talking to the other process, answers its own books
// (checked against the sandbox's raw API), `report_owed` too, from the business's own books mirror. A
// webhook the first process receives reaches the business's subscriber on the second. Then the
// vault key is rotated with the grants kept: restarted with the new key first and the old after it, the
// deployment seals everything again under the new key and every token still works; restarted with the new
// key alone, still.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, receivable, same, type Tally, tally } from '../answers/ground-truth.js';
import { type Json, listAll, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn, signInByForms } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, spawnHostedServer } from './support/hosted.js';
import { deliveryTaken, draftInvoice, owedTruth, registerWebhook, sendInvoice, WEBHOOK_URL } from './support/hosted-webhooks.js';
import { modernWatcher } from './support/mcp-watchers.js';
import { MemoryOAuthProvider, oauthClient, type Signer, startFlow } from './support/oauth-client.js';

/** How many businesses sign in: a few in the suite; HOSTED_BUSINESSES=50 for the deployment-sized run. */
const BUSINESSES = Number(process.env.HOSTED_BUSINESSES ?? 6);
const REDIRECT = 'http://127.0.0.1:9/callback';

let sb: TestSandbox;
let database: string;
let servers: HostedServer[] = [];
const oldKey = newVaultKey();
const newKey = newVaultKey();

interface Signed {
  id: number;
  signer: Signer;
  provider: MemoryOAuthProvider;
  lastInvoice: { id: number; number: string; total: string };
  /** What the business is owed per currency, summed here from its raw invoices. */
  owed: Map<string, Tally>;
}
const signed: Signed[] = [];

/** The deployment's public URL: the first process's own address the first time, kept across restarts. */
let publicUrl: string | undefined;

/** The deployment's processes, all with the same vault key: two, or one after a restart. */
async function start(vaultKey: string, processes = 2): Promise<void> {
  const first = await spawnHostedServer({ sandbox: sb, database, vaultKey, ...(publicUrl ? { publicUrl } : {}) });
  publicUrl = first.url;
  servers = [first];
  if (processes === 2) servers.push(await spawnHostedServer({ sandbox: sb, database, vaultKey, publicUrl }));
}

async function stop(): Promise<void> {
  await Promise.all(servers.map((s) => s.close()));
}

/** The business's client through process `n`: its stored token, no sign-in. */
async function answers(business: Signed, n: number): Promise<void> {
  const { client, transport } = oauthClient(servers[n]?.direct as string, business.provider);
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

async function sealedKeyIds(): Promise<string[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT DISTINCT key_id FROM (SELECT key_id FROM invoicing_mcp_hosted.secrets UNION ALL SELECT key_id FROM invoicing_mcp_hosted.oauth) k',
    );
    return rows.map((r) => r.key_id as string);
  } finally {
    await client.end();
  }
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
      const invoices = await listAll(await signIn(sb.baseUrl, { key_id: signer.keyId, secret: signer.secret }), '/api/v1/invoices');
      const last = invoices.at(-1);
      const provider = new MemoryOAuthProvider(REDIRECT, `Assistant ${i}`);
      const flow = await startFlow(servers[i % 2]?.url as string, provider);
      const back = await signInByForms(
        provider.authorizationUrl as URL,
        REDIRECT,
        signer,
        servers[(i + 1) % 2]?.origin.replace(/:\d+$/, `:${new URL(servers[(i + 1) % 2]?.direct as string).port}`) as string,
      );
      await flow.transport.finishAuth(back);
      const owed = tally(
        invoices.filter(receivable),
        (inv) => inv.currency,
        (inv) => inv.balance,
      );
      signed.push({ id: made.body.id, signer, provider, lastInvoice: { id: last.id, number: last.number, total: last.total }, owed });
    }
    for (const [i, business] of signed.entries()) await answers(business, (i + 1) % 2);
  });

  it("a webhook one process receives reaches the business's subscriber on the other, and its next answer there", async () => {
    const made = await sb.admin('POST', '/businesses', {});
    sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
    const signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
    const provider = new MemoryOAuthProvider(REDIRECT, 'Subscribing assistant');
    const flow = await startFlow(publicUrl as string, provider);
    // Signed in through the second process; the URL it shows is under the public origin: the first process's.
    const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, servers[1]?.direct as string);
    const page = await forms.continueWith(signer);
    const url = /id="webhook_url">([^<]+)</.exec(page)?.[1] as string;
    expect(url).toMatch(WEBHOOK_URL);
    expect(url.startsWith(`${servers[0]?.origin}/webhooks/`)).toBe(true);
    const secret = await registerWebhook(sb, made.body.id, url);
    await flow.transport.finishAuth(await forms.allow(page, 'read', { webhook_secret: secret }));
    const invoice = await draftInvoice(sb, signer);
    const uri = `invoicing://invoices/${invoice}`;
    const authorization = `Bearer ${provider.tokens()?.access_token}`;
    const watcher = await modernWatcher({ http: servers[1]?.direct as string, headers: { authorization } });
    try {
      await watcher.subscribe([uri]);
      const since = Date.now();
      await sendInvoice(sb, made.body.id, invoice);
      await watcher.updated(uri, since, 10_000);
      await deliveryTaken(sb, url);
    } finally {
      await watcher.close();
    }
    const { client, transport } = oauthClient(servers[1]?.direct as string, provider);
    await client.connect(transport);
    const owed = await answerOf(client, 'report_owed');
    const truth = await owedTruth(sb, signer);
    for (const c of owed.currencies) expect(same(c.balance, truth.get(c.currency)?.sum ?? 'NaN'), `${c.currency} ${c.balance}`).toBe(true);
    expect(owed.currencies.length).toBe(truth.size);
    await client.close();
  });

  it('rotates the vault key without losing a grant: new key first, then the new key alone', async () => {
    const oldIds = await sealedKeyIds();
    expect(oldIds).toHaveLength(1);
    await stop();
    await start(`${newKey},${oldKey}`, 1);
    const rotated = await sealedKeyIds();
    expect(rotated).toHaveLength(1);
    expect(rotated).not.toEqual(oldIds);
    for (const business of signed) await answers(business, 0);
    // A token is for the deployment's public URL: a server of another URL refuses it.
    const elsewhere = await spawnHostedServer({ sandbox: sb, database, vaultKey: newKey });
    const refused = await fetch(elsewhere.direct, {
      method: 'POST',
      headers: { authorization: `Bearer ${signed[0]?.provider.tokens()?.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    await elsewhere.close();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('not issued for this resource');
    await stop();
    await start(newKey, 1);
    for (const business of signed) await answers(business, 0);
  });
});
