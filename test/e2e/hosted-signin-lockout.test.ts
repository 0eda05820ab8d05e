// Sign-ins that cannot be used to lock people out, against the built server, a real Postgres and a sandbox
// holding the service's real sign-in limit (10 a minute from one address: every sign-in of the deployment
// comes from its one address). Thirty wrong secrets for a business's key, posted at once from many clients
// through a trusted proxy, and at once after them the owner's own sign-in, another business's first one and
// an existing grant's renewal of its service session all succeed. Behind `--trust-proxy` the forwarded
// addresses are counted apart; an X-Forwarded-For the server was not told to trust is ignored.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { heldPost } from './support/held-request.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { MemoryOAuthProvider, type Signer, startFlow } from './support/oauth-client.js';
import { type Attempt, attemptOf, forwardedFor, newBusiness, REDIRECT, signInPerson, wrongSecretsAtOnce } from './support/page-sign-in.js';

let sb: TestSandbox;
const servers: HostedServer[] = [];
/** The first deployment, and the business whose key was guessed at there (the vault holds its secret). */
let lockout: HostedServer | undefined;
let owner: Signer;

/**
 * A deployment of one process on a database of its own; behind a proxy at 127.0.0.1 when `trusting`. It is
 * told the service's own figure, as the sandbox here holds it to, unless `serviceSignIns` says otherwise.
 */
async function deployment(label: string, trusting: boolean, serviceSignIns = 10): Promise<HostedServer> {
  const server = await startHostedServer({
    sandbox: sb,
    database: await postgresDatabase(label),
    vaultKey: newVaultKey(),
    env: { INVOICING_MCP_SERVICE_SIGN_INS: String(serviceSignIns), ...(trusting ? { INVOICING_MCP_TRUST_PROXY: '127.0.0.1' } : {}) },
  });
  servers.push(server);
  return server;
}

/** A call that needs the tenant's service session: the business's own name, from the service. */
async function businessName(signedIn: { client: { callTool: (p: { name: string; arguments: object }) => Promise<any> } }) {
  const got = await signedIn.client.callTool({ name: 'check_connection', arguments: {} });
  expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
  return got.structuredContent as { business?: { name?: string } };
}

const wrongAnswered = (sbSignIns: { status: number }[]) => sbSignIns.filter((e) => e.status === 401).length;

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000, signInLimit: 10 });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await sb?.close();
});

describe('sign-ins under a flood of wrong secrets', () => {
  it("30 wrong secrets for a known key at once: the owner, another business and a grant's renewal still get in", async () => {
    const server = await deployment('hosted_lockout', true);
    lockout = server;
    owner = await newBusiness(sb);
    const other = await newBusiness(sb);
    const existing = await signInPerson(server.url, server.direct, owner, 'Existing assistant', '198.51.100.1');
    await businessName(existing);

    // Thirty clients' guesses through the proxy, on ten pages, from ten addresses.
    const addresses = Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`);
    const attack = wrongSecretsAtOnce(server.url, server.direct, owner, 30, { pages: 10, addresses });
    const answered: Attempt[] = await attack;
    expect(
      answered.every((a) => a.problem !== ''),
      JSON.stringify(answered),
    ).toBe(true);

    // At once after: the owner with the right secret, another business's first sign-in, and the existing
    // grant's service session renewed (the service ended it).
    await sb.endSessions(owner.keyId);
    const settled = await Promise.allSettled([
      signInPerson(server.url, server.direct, owner, 'Owner again', '198.51.100.2'),
      signInPerson(server.url, server.direct, other, 'Another business', '198.51.100.3'),
      businessName(existing),
    ]);
    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [`${['owner', 'other', 'renewal'][i]}: ${String(s.reason)}`] : []));
    expect(failed).toEqual([]);
    const [again, newcomer, renewed] = settled.map((s) => (s as PromiseFulfilledResult<any>).value);
    expect(renewed.business?.name).toBeTruthy();
    expect((await businessName(again)).business?.name).toBe(renewed.business?.name);
    expect((await businessName(newcomer)).business?.name).not.toBe(renewed.business?.name);

    // The guesses that reached the service: a few, never the service's whole allowance.
    const guessed = wrongAnswered(await sb.signIns(owner.keyId));
    expect(guessed).toBeLessThanOrEqual(3);
    // Every guess not sent was told how long to wait, in words tied to the fields.
    const held = answered.filter((a) => a.status === 429);
    expect(held.length).toBeGreaterThanOrEqual(30 - guessed);
    for (const a of held) {
      expect(a.problem).toMatch(/try again in \d+ (second|minute)s?/i);
      expect(a.tiedToFields).toBe(true);
    }
    for (const c of [existing, again, newcomer]) await c.client.close();
  });
});

/** `count` wrong sign-ins with keys no one has (so no key ID's count is reached), at once, from `address`. */
async function strangersGuess(server: HostedServer, count: number, address: string | undefined): Promise<Attempt[]> {
  const keys = Array.from({ length: count }, () => ({
    keyId: `svck_live_${randomBytes(18).toString('base64url')}`,
    secret: `svc_live_${randomBytes(30).toString('base64url')}`,
  }));
  const provider = new MemoryOAuthProvider(REDIRECT, 'Guesser');
  await startFlow(server.url, provider);
  // One page for each guess, so that no page's own count is reached either.
  const pages = await Promise.all(
    keys.map(() => openSignIn(provider.authorizationUrl as URL, REDIRECT, server.direct, fetch, forwardedFor(address))),
  );
  const answers = await Promise.all(keys.map((key, i) => (pages[i] as (typeof pages)[number]).tryKey(key)));
  return answers.map(attemptOf);
}

const reachedService = async (since: number): Promise<number> => (await sb.signIns()).length - since;

// These count an address's unfinished sign-ins (5 in 15 minutes): the deployment is told of a service that
// allows 25 a minute, so that an address's share of the minute's budget (a third of the people's: 5) does not
// come first. Each test spends at most 6 of the sandbox's 10.
describe('who a client is, behind a proxy', () => {
  it('behind --trust-proxy, the addresses the proxy forwards are counted apart', async () => {
    await sb.advanceClock(61);
    const server = await deployment('hosted_trusted', true, 25);
    const before = (await sb.signIns()).length;
    const first = await strangersGuess(server, 5, '192.0.2.10');
    expect(
      first.every((a) => a.status === 200 && /Wrong key ID or secret/.test(a.problem)),
      JSON.stringify(first),
    ).toBe(true);
    const [held] = await strangersGuess(server, 1, '192.0.2.10');
    expect(held?.status).toBe(429);
    expect(held?.problem).toMatch(/from your address that had a wrong secret or never reached Allow\. Try again in \d+ minutes/);
    // Another client of the proxy is not held by the first one's failures.
    const [other] = await strangersGuess(server, 1, '192.0.2.11');
    expect(other?.problem).toMatch(/Wrong key ID or secret/);
    expect(await reachedService(before)).toBe(6);
  });

  it('an X-Forwarded-For the server was not told to trust is ignored: the connection counts', async () => {
    await sb.advanceClock(61);
    const server = await deployment('hosted_untrusted', false, 25);
    const before = (await sb.signIns()).length;
    const forged = await Promise.all([1, 2, 3, 4, 5].map((i) => strangersGuess(server, 1, `192.0.2.${20 + i}`)));
    expect(
      forged.flat().every((a) => /Wrong key ID or secret/.test(a.problem)),
      JSON.stringify(forged),
    ).toBe(true);
    const [held] = await strangersGuess(server, 1, '192.0.2.99');
    expect(held?.status).toBe(429);
    expect(held?.problem).toMatch(/from your address/);
    expect(await reachedService(before)).toBe(5);
  });
});

describe('SIGTERM', () => {
  it('a sign-in POST and an OAuth request in flight when SIGTERM arrives are answered, not cut', async () => {
    const server = lockout as HostedServer;
    const provider = new MemoryOAuthProvider(REDIRECT, 'Stopping');
    await startFlow(server.url, provider);
    const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, server.direct);
    const post = forms.keyPost();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const signIn = await heldPost(
      post.url,
      { ...form, cookie: post.cookie, origin: server.origin },
      new URLSearchParams({ ...post.fields, key_id: owner.keyId, secret: owner.secret }).toString(),
    );
    const token = await heldPost(
      new URL('/oauth/token', server.direct),
      form,
      new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: REDIRECT, client_id: 'none' }).toString(),
    );
    const exited = server.close();
    // Draining has begun once /readyz says so (or nothing answers any more).
    await eventually(async () => {
      const ready = await fetch(new URL('/readyz', server.direct)).catch(() => null);
      return ready === null || ready.status === 503 ? true : undefined;
    });
    const [signedIn, refused] = await Promise.all([signIn.finish(), token.finish()]);
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain('value="allow"');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(refused.text).error).toMatch(/^invalid_/);
    await exited;
  });
});
