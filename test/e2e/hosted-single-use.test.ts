// What is good for one use is used once, however many ask for it at once through both processes of a
// deployment (on connections opened beforehand). An authorization code and a refresh token sent eight times
// give exactly one set of tokens; the others are refused (invalid_grant) and the reuse ends the grant, so the
// tokens that one got stop working too, as when the same code or refresh token comes back later. A client
// assertion authenticates its client once. A sign-in ends once: of the same Allow posted eight times, or
// Allows and Denies, one goes on (one grant, one line in the grant log) and every other is told the sign-in
// has ended. Repeated, since a race may go either way. And a token is not bound to a key it could be used
// without: /mcp checks no proof of possession, so no DPoP (RFC 9449) is offered and a DPoP proof at the token
// endpoint still gets a Bearer token.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import {
  authorizationRequest,
  codeFor,
  codeForm,
  mcpStatus,
  publicClient,
  refreshForm,
  register,
  registerClient,
  type TokenAnswer,
  tokenAnswer,
  tokenPost,
  tokenRequest,
  tokenRequestsAtOnce,
} from './support/pkce-flow.js';
import { type Answer, postsAtOnce } from './support/posts-at-once.js';
import { clientAssertion, dpopProof } from './support/signed-jwts.js';

const AT_ONCE = 8;
const ROUNDS = 3;

const REDIRECT = 'http://127.0.0.1:9/callback';

let sb: TestSandbox;
let server: HostedServer;
/** A second process of the deployment: the same database and vault key, public at the first one's URL. */
let other: HostedServer;
let db: pg.Client;

beforeAll(async () => {
  sb = await startTestSandbox();
  const database = await postgresDatabase('hosted_single_use');
  const vaultKey = newVaultKey();
  server = await startHostedServer({ sandbox: sb, database, vaultKey });
  other = await startHostedServer({ sandbox: sb, database, vaultKey, publicUrl: server.url });
  db = new pg.Client({ connectionString: database });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await other?.close();
  await server?.close();
  await sb?.close();
});

/** Each process's own origin, the i-th post going to the (i mod 2)-th. */
const via = (i: number): string => new URL((i % 2 === 0 ? server : other).direct).origin;

const signer = () => ({ keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });

/** Exactly one answer is a token set; every other is invalid_grant. The token set. */
function onlyOneGranted(answers: TokenAnswer[]): Record<string, any> {
  const granted = answers.filter((a) => a.status === 200);
  expect(
    granted.length,
    `answers: ${answers.map((a) => `${a.status} ${a.body.error ?? ''} ${a.body.error_description ?? ''}`).join('; ')}`,
  ).toBe(1);
  for (const refused of answers.filter((a) => a.status !== 200)) {
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  }
  return (granted[0] as TokenAnswer).body;
}

describe('single use', () => {
  it(`a code sent ${AT_ONCE} times at once gives one token set, and the reuse ends the grant (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const held = await codeFor(server, signer());
      const tokens = onlyOneGranted(await tokenRequestsAtOnce(server.origin, codeForm(held, server), AT_ONCE));
      expect(await mcpStatus(server.url, tokens.access_token)).toBe(401);
      const renewed = await tokenRequest(server.origin, refreshForm(held.clientId, tokens.refresh_token, server));
      expect(renewed.body.error).toBe('invalid_grant');
    }
  });

  it(`a refresh token sent ${AT_ONCE} times at once gives one token set, and the reuse ends the grant (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const held = await codeFor(server, signer());
      const first = await tokenRequest(server.origin, codeForm(held, server));
      expect(first.status).toBe(200);
      expect(await mcpStatus(server.url, first.body.access_token)).not.toBe(401);
      const answers = await tokenRequestsAtOnce(server.origin, refreshForm(held.clientId, first.body.refresh_token, server), AT_ONCE);
      const tokens = onlyOneGranted(answers);
      expect(await mcpStatus(server.url, tokens.access_token)).toBe(401);
      expect(await mcpStatus(server.url, first.body.access_token)).toBe(401);
      const renewed = await tokenRequest(server.origin, refreshForm(held.clientId, tokens.refresh_token, server));
      expect(renewed.body.error).toBe('invalid_grant');
    }
  });

  it('a code traded once works; traded again later it is refused and the tokens it gave stop working', async () => {
    const held = await codeFor(server, signer());
    const first = await tokenRequest(server.origin, codeForm(held, server));
    expect(first.status).toBe(200);
    expect(await mcpStatus(server.url, first.body.access_token)).not.toBe(401);
    const again = await tokenRequest(server.origin, codeForm(held, server));
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await mcpStatus(server.url, first.body.access_token)).toBe(401);
  });

  it(`a client assertion sent ${AT_ONCE} times at once authenticates its client once; the others are refused as replays`, async () => {
    const registered = await register(server.origin, { ...publicClient(REDIRECT), token_endpoint_auth_method: 'client_secret_jwt' });
    expect(registered.status).toBe(201);
    const clientId = String(registered.body.client_id);
    for (let round = 0; round < ROUNDS; round++) {
      // Past the client's authentication, a made-up refresh token is refused: invalid_grant says it got there.
      const form = {
        grant_type: 'refresh_token',
        refresh_token: 'made-up',
        client_id: clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: clientAssertion(clientId, String(registered.body.client_secret), server.origin),
        resource: server.url,
      };
      const answers = (await postsAtOnce(Array.from({ length: AT_ONCE }, (_, i) => tokenPost(via(i), form)))).map(tokenAnswer);
      const seen = answers.map((a) => `${a.status} ${a.body.error} ${a.body.error_description ?? ''}`);
      expect(
        seen.filter((a) => a.startsWith('400 invalid_grant')),
        seen.join('; '),
      ).toHaveLength(1);
      for (const refused of seen.filter((a) => !a.startsWith('400 invalid_grant')))
        expect(refused).toMatch(/^(400 invalid_request replay detected|401 invalid_client)/);
      expect((await tokenRequest(server.origin, form)).body.error).toBe('invalid_client');
    }
  });
});

describe('a sign-in ends once', () => {
  /** A new client's sign-in with the key given, on its second step (Allow or Deny), and what it needs after. */
  async function atConsent() {
    const clientId = await registerClient(server.origin, REDIRECT);
    const { url, verifier } = authorizationRequest(server, clientId, REDIRECT);
    const forms = await openSignIn(url, REDIRECT, server.origin);
    const post = forms.pagePost(await forms.continueWith(signer()));
    const send = (action: 'allow' | 'deny', i: number) => ({
      url: new URL(post.url.pathname, via(i)),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: post.cookie },
      body: new URLSearchParams({ ...post.fields, action, access: 'read' }).toString(),
    });
    return { clientId, verifier, cookie: post.cookie, send };
  }

  /** The one answer that ended the sign-in (sent on to resume it); every other says the sign-in has ended. Its index. */
  function onlyOneEnded(answers: Answer[]): number {
    const ended = answers.flatMap((a, i) => (a.status === 303 ? [i] : []));
    expect(ended, `answers: ${answers.map((a) => a.status).join(', ')}`).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 303)) {
      expect(refused.status).toBe(400);
      expect(refused.body).toContain('This sign-in has ended');
    }
    return ended[0] as number;
  }

  /** Follows the ending answer's redirect (resuming the authorization) back to the client; the query it got. */
  async function backToClient(answer: Answer, cookie: string): Promise<URLSearchParams> {
    let at = new URL(String(answer.headers.location), server.origin);
    while (!at.href.startsWith(REDIRECT)) {
      const res = await fetch(at, { redirect: 'manual', headers: { cookie } });
      await res.body?.cancel();
      at = new URL(String(res.headers.get('location')), at);
    }
    return at.searchParams;
  }

  const logOf = async (clientId: string): Promise<string[]> =>
    (await db.query('SELECT event FROM invoicing_mcp_hosted.grant_log WHERE client_id = $1', [clientId])).rows.map((r) => r.event);
  const grants = async (): Promise<number> =>
    Number((await db.query("SELECT count(*) FROM invoicing_mcp_hosted.oauth WHERE model = 'Grant'")).rows[0].count);

  it(`Allow posted ${AT_ONCE} times at once through both processes makes one grant, which works (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const sign = await atConsent();
      const before = await grants();
      const answers = await postsAtOnce(Array.from({ length: AT_ONCE }, (_, i) => sign.send('allow', i)));
      const winner = onlyOneEnded(answers);
      expect(await logOf(sign.clientId)).toEqual(['granted']);
      expect(await grants()).toBe(before + 1);
      const back = await backToClient(answers[winner] as Answer, sign.cookie);
      const held = { clientId: sign.clientId, redirect: REDIRECT, verifier: sign.verifier, code: String(back.get('code')) };
      expect((await tokenRequest(server.origin, codeForm(held, server))).status).toBe(200);
    }
  });

  it(`Allow and Deny posted at once (${AT_ONCE} in all) through both processes: one of them decides (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const sign = await atConsent();
      const before = await grants();
      const action = (i: number) => (Math.floor(i / 2) % 2 === 0 ? 'allow' : 'deny');
      const answers = await postsAtOnce(Array.from({ length: AT_ONCE }, (_, i) => sign.send(action(i), i)));
      const winner = onlyOneEnded(answers);
      const allowed = action(winner) === 'allow';
      expect(await logOf(sign.clientId)).toEqual([allowed ? 'granted' : 'denied']);
      expect(await grants()).toBe(before + (allowed ? 1 : 0));
      const back = await backToClient(answers[winner] as Answer, sign.cookie);
      if (allowed) expect(back.get('code')).toBeTruthy();
      else expect(back.get('error')).toBe('access_denied');
    }
  });
});

describe('tokens bound to nothing', () => {
  it('names no DPoP algorithm in the authorization server metadata, at either well-known place', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(`${server.origin}${path}`)).json()) as Record<string, unknown>;
      expect(metadata.issuer).toBe(server.origin);
      expect(metadata).not.toHaveProperty('dpop_signing_alg_values_supported');
    }
  });

  it('answers a token request with a DPoP proof with a Bearer token, which works at /mcp as one', async () => {
    const held = await codeFor(server, { keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });
    const token = `${server.origin}/oauth/token`;
    const res = await fetch(token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', dpop: dpopProof(token) },
      body: new URLSearchParams(codeForm(held, server)).toString(),
    });
    const body = (await res.json()) as Record<string, string>;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.token_type).toBe('Bearer');
    expect(await mcpStatus(server.url, body.access_token as string)).not.toBe(401);
  });
});
