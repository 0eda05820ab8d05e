// A hosted deployment attacked as an attacker and an operator would: two processes on one Postgres of the
// test's own. Postgres is SIGKILLed (with all its backends, as when its machine dies) and started again five
// times while a business's clients call tools through both processes and someone asks the token endpoint:
// both processes live through every outage; each call is answered, or refused with a retry hint (a tool
// error saying so, or 503 with Retry-After); each create, retried with its idempotency key as the hint says,
// exists at most once at the service (its raw API); when the database is back, every call is answered again.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { type AttackedDeployment, type Business, connected, startAttackedDeployment } from './support/attacked-deployment.js';
import type { HostedServer } from './support/hosted.js';
import { type Attempt, newBusiness, signInPerson, wrongSecretsAtOnce } from './support/page-sign-in.js';
import { codeFor, codeForm, mcpStatus, tokenRequestsAtOnce } from './support/pkce-flow.js';

const KILLS = 5;
/** How long Postgres stays down each time, and up between outages. */
const DOWN_MS = 400;
const UP_MS = 600;
const PACE_MS = 30;
/** A tool error that tells the model to call again. */
const RETRY_HINT = /retry|try again/i;

let d: AttackedDeployment;
let business: Business;

beforeAll(async () => {
  d = await startAttackedDeployment();
}, 60_000);
afterAll(() => d?.close());

/** The deployment's /readyz statuses, by process (0: it did not answer). */
const readiness = (): Promise<number[]> =>
  Promise.all(
    d.servers.map((s) =>
      fetch(new URL('/readyz', s.direct)).then(
        (r) => r.status,
        () => 0,
      ),
    ),
  );

async function untilReady(): Promise<number[]> {
  for (const until = Date.now() + 5_000; ; await sleep(50)) {
    const statuses = await readiness();
    if (statuses.every((s) => s === 200) || Date.now() > until) return statuses;
  }
}

it('with no tenant loaded (as right after a restart), /readyz says not ready while Postgres is down, and ready once it is back', async () => {
  expect(await readiness()).toEqual([200, 200]);
  await d.postgres.kill();
  try {
    expect(await readiness()).toEqual([503, 503]);
  } finally {
    await d.postgres.restart();
  }
  expect(await untilReady()).toEqual([200, 200]);
  business = await d.signInBusiness('Attacked assistant');
});

/** What the clients saw: answers, refusals that say to retry, and anything else (which fails the test). */
interface Seen {
  answered: number;
  refusedWithRetry: number;
  unexplained: string[];
}

/** A fetch that keeps, for each 503, whether it said when to retry. */
function watchedFetch(seen: Seen): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.status >= 500 && !(res.status === 503 && res.headers.get('retry-after')))
      seen.unexplained.push(`${res.status} from ${String(input)} (retry-after: ${res.headers.get('retry-after')})`);
    return res;
  };
}

/** One call: answered, or refused with a retry (a tool error that says so, or an HTTP 503 with Retry-After). */
async function call(client: Client, seen: Seen, name: string, args: Record<string, unknown>): Promise<boolean> {
  try {
    const result = await client.callTool({ name, arguments: args });
    const text = JSON.stringify(result.content);
    if (!result.isError) seen.answered++;
    else if (RETRY_HINT.test(text)) seen.refusedWithRetry++;
    else seen.unexplained.push(`${name}: ${text}`);
    return !result.isError;
  } catch (err) {
    // Refused at the HTTP level: the watched fetch has judged the status and its Retry-After.
    if (/temporarily_unavailable|\b503\b/.test(String(err))) seen.refusedWithRetry++;
    else seen.unexplained.push(`${name} threw: ${String(err)}`);
    return false;
  }
}

/** Until `going()` is false: reads, and creates each retried with its own idempotency key until answered. */
async function keepCalling(client: Client, seen: Seen, tag: string, going: () => boolean, names: string[]): Promise<void> {
  for (let i = 0; going(); i++) {
    // A client's pace, not a flood: the outages are what is tested, on a machine the suite shares.
    await sleep(PACE_MS);
    await call(client, seen, 'list_invoices', { per_page: 5 });
    await call(client, seen, 'report_owed', {});
    const name = `${tag} customer ${i}`;
    names.push(name);
    for (let tries = 0; tries < 50; tries++) {
      if (await call(client, seen, 'create_customer', { name, idempotency_key: `${tag}-${i}-key` })) break;
      await sleep(50);
    }
  }
}

/** The token endpoint asked with a refresh token it never issued: refused (400), or 503 with Retry-After. */
async function keepAskingForTokens(server: HostedServer, seen: Seen, going: () => boolean): Promise<void> {
  const clientId = business.provider.clientInformation()?.client_id as string;
  while (going()) {
    const res = await fetch(new URL('/oauth/token', server.direct), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'never-issued', client_id: clientId }).toString(),
    }).catch((err: unknown) => err);
    if (!(res instanceof Response)) seen.unexplained.push(`token endpoint: ${String(res)}`);
    else if (res.status === 400) seen.answered++;
    else if (res.status === 503 && res.headers.get('retry-after')) seen.refusedWithRetry++;
    else seen.unexplained.push(`token endpoint: ${res.status} ${await res.text()}`);
    await sleep(50);
  }
}

async function alive(server: HostedServer): Promise<boolean> {
  const res = await fetch(new URL('/healthz', server.direct)).catch(() => null);
  return res?.status === 200 && !server.stderr().includes('stopped on an unexpected error');
}

it(`Postgres SIGKILLed and restarted ${KILLS} times while clients call tools: both processes live, every call answered or refused with a retry, nothing created twice`, async () => {
  const seen: Seen = { answered: 0, refusedWithRetry: 0, unexplained: [] };
  const clients = await Promise.all(d.servers.map((s) => connected(business, s, watchedFetch(seen))));
  const names: string[] = [];
  let going = true;
  const callers = [
    ...clients.map((client, n) => keepCalling(client, seen, `p${n}`, () => going, names)),
    keepAskingForTokens(d.servers[0], seen, () => going),
  ];
  const outages: string[] = [];
  for (let k = 0; k < KILLS; k++) {
    await sleep(UP_MS);
    await d.postgres.kill();
    const down = await readiness();
    await sleep(DOWN_MS);
    await d.postgres.restart();
    for (const [n, server] of d.servers.entries())
      expect(await alive(server), `process ${n} after outage ${k + 1}:\n${server.stderr().slice(-3000)}`).toBe(true);
    expect(down, `/readyz during outage ${k + 1}`).toEqual([503, 503]);
    for (const [n, server] of d.servers.entries())
      expect(await alive(server), `process ${n} after outage ${k + 1}:\n${server.stderr().slice(-2000)}`).toBe(true);
    outages.push(`outage ${k + 1}: ${seen.answered} answered, ${seen.refusedWithRetry} refused with a retry`);
  }
  // The database is back: every call is answered again, in both processes, with no restart.
  expect(await untilReady()).toEqual([200, 200]);
  const before = seen.answered;
  await sleep(UP_MS);
  going = false;
  await Promise.all(callers);
  for (const client of clients) {
    const after = { answered: 0, refusedWithRetry: 0, unexplained: [] } as Seen;
    expect(await call(client, after, 'list_invoices', { per_page: 1 }), JSON.stringify(after)).toBe(true);
    await client.close();
  }
  expect(seen.unexplained, outages.join('\n')).toEqual([]);
  expect(seen.answered).toBeGreaterThan(before);
  // Each create at most once at the service, whatever the outages did to the calls that made it.
  const session = await signIn(d.sb.baseUrl, { key_id: business.signer.keyId, secret: business.signer.secret });
  const stored = (await listAll(session, '/api/v1/customers')).map((c) => c.name as string).filter((n) => names.includes(n));
  expect(stored.length).toBeGreaterThan(0);
  expect(stored.filter((n, i) => stored.indexOf(n) !== i)).toEqual([]);
  for (const [n, server] of d.servers.entries()) expect(await alive(server), `process ${n}`).toBe(true);
}, 60_000);

it("a tenant's query whose backend is terminated (pg_terminate_backend) while it waits: the call is refused with a retry, the process lives, the next call is answered", async () => {
  const seen: Seen = { answered: 0, refusedWithRetry: 0, unexplained: [] };
  const client = await connected(business, d.servers[1], watchedFetch(seen));
  expect(await call(client, seen, 'report_owed', {}), JSON.stringify(seen)).toBe(true);
  const admin = new pg.Client({ connectionString: d.postgres.url });
  await admin.connect();
  try {
    // The tenant's books mirror is open (its first answer opened it) and every table of it locked: the next
    // query of the mirror waits, on a connection checked out of the process's shared pool.: the next query of a tenant's mirror waits on a backend of its own.
    const tables = await admin.query(
      "SELECT schemaname || '.' || tablename AS name FROM pg_tables WHERE schemaname LIKE 'invoicing_mcp_%' AND schemaname <> 'invoicing_mcp_hosted'",
    );
    expect(tables.rows.length, JSON.stringify((await admin.query('SELECT nspname FROM pg_namespace')).rows)).toBeGreaterThan(0);
    await admin.query('BEGIN');
    await admin.query(`LOCK TABLE ${tables.rows.map((r) => r.name).join(', ')} IN ACCESS EXCLUSIVE MODE`);
    // The answer waits, and so does the mirror's sync (each second) in its transaction: every backend that
    // waits is terminated, for two seconds.
    const answered = call(client, seen, 'report_owed', {});
    let terminated = 0;
    for (const until = Date.now() + 2_000; Date.now() < until; ) {
      await sleep(20);
      const r = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      terminated += r.rowCount ?? 0;
    }
    expect(terminated).toBeGreaterThan(1);
    await admin.query('ROLLBACK');
    await answered;
  } finally {
    await admin.end();
  }
  await sleep(200);
  expect(await alive(d.servers[1]), d.servers[1].stderr().slice(-2000)).toBe(true);
  expect(await call(client, seen, 'report_owed', {}), JSON.stringify(seen)).toBe(true);
  expect(seen.unexplained).toEqual([]);
  await client.close();
});

it("30 wrong secrets for a known key through the proxy, then at once the owner's sign-in, another business's and an existing grant's renewal: all succeed", async () => {
  const [first, second] = d.servers;
  const owner = await newBusiness(d.sb);
  const other = await newBusiness(d.sb);
  const existing = await signInPerson(first.url, first.direct, owner, 'Existing assistant', '198.51.100.1');
  const check = async (c: Client) => {
    const got = await c.callTool({ name: 'check_connection', arguments: {} });
    expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
    return (got.structuredContent as { business?: { name?: string } }).business?.name;
  };
  const ownerName = await check(existing.client);
  expect(ownerName).toBeTruthy();
  // Thirty guesses from ten clients of the proxy, on ten sign-in pages, spread over both processes.
  const addresses = Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`);
  const attacks = await Promise.all([
    wrongSecretsAtOnce(first.url, first.direct, owner, 15, { pages: 5, addresses }),
    wrongSecretsAtOnce(first.url, second.direct, owner, 15, { pages: 5, addresses }),
  ]);
  const answered: Attempt[] = attacks.flat();
  expect(
    answered.every((a) => a.problem !== ''),
    JSON.stringify(answered),
  ).toBe(true);
  // The service ends the existing grant's session: its next call must sign in to the service again.
  await d.sb.endSessions(owner.keyId);
  const settled = await Promise.allSettled([
    signInPerson(first.url, second.direct, owner, 'Owner again', '198.51.100.2'),
    signInPerson(first.url, first.direct, other, 'Another business', '198.51.100.3'),
    check(existing.client),
  ]);
  const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [`${['owner', 'other', 'renewal'][i]}: ${String(s.reason)}`] : []));
  expect(failed).toEqual([]);
  const [again, newcomer, renewed] = settled.map((s) => (s as PromiseFulfilledResult<any>).value);
  expect(renewed).toBe(ownerName);
  expect(await check(again.client)).toBe(ownerName);
  expect(await check(newcomer.client)).not.toBe(ownerName);
  // A few guesses reached the service, never its allowance; the rest were held with a stated wait.
  const guessed = (await d.sb.signIns(owner.keyId)).filter((e) => e.status === 401).length;
  expect(guessed).toBeLessThanOrEqual(3);
  expect(answered.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(30 - guessed);
  for (const c of [existing, again, newcomer]) await c.client.close();
});

it('8 redemptions of one code sent at once, half to each process: exactly one token set, and the reuse ends the grant', async () => {
  const [first, second] = d.servers;
  const deployment = { url: first.url, origin: first.origin };
  const held = await codeFor(deployment, business.signer);
  const form = codeForm(held, deployment);
  const answers = (await Promise.all([first, second].map((s) => tokenRequestsAtOnce(new URL(s.direct).origin, form, 4)))).flat();
  const granted = answers.filter((a) => a.status === 200);
  expect(granted.length, answers.map((a) => `${a.status} ${a.body.error ?? ''}`).join('; ')).toBe(1);
  expect(answers.filter((a) => a.status === 400 && a.body.error === 'invalid_grant')).toHaveLength(7);
  expect(await mcpStatus(first.url, granted[0]?.body.access_token)).toBe(401);
});
