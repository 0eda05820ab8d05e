// A token request that is checked and refused changes nothing: a wrong resource, scope, client, PKCE
// verifier or redirect URI leaves the code or refresh token as it was, and the right request then gets its
// tokens (so whoever holds a leaked code cannot burn it without the verifier). The resource is compared in
// canonical form: a trailing slash, the scheme's and host's case and the default port written out are the
// same resource. The deployment is public at http://localhost/mcp (port 80, so the default port can be
// written) and listens on a port of its own, as behind a proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { signInByForms } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import {
  authorizationRequest,
  type CodeInHand,
  codeForm,
  type Deployment,
  mcpStatus,
  refreshForm,
  registerClient,
  type TokenAnswer,
  tokenRequest,
} from './support/pkce-flow.js';

const PUBLIC = 'http://localhost/mcp';
const REDIRECT = 'http://127.0.0.1:9/callback';
const SAME_RESOURCE = ['http://localhost/mcp/', 'HTTP://LocalHost/mcp', 'http://localhost:80/mcp', 'Http://LOCALHOST:80/mcp/'];
const OTHER_RESOURCES = [
  'http://localhost',
  'http://localhost/',
  'http://other.example/mcp',
  'http://localhost/mcp/more',
  'http://localhost:8080/mcp',
];

let sb: TestSandbox;
let server: HostedServer;
/** Where requests go (the process itself), and the resource they name (the public URL). */
let deployment: Deployment;

// A minute: the run's Postgres may still be starting, and a worker's first hosted server loads the OAuth library.
beforeAll(async () => {
  sb = await startTestSandbox();
  server = await startHostedServer({
    sandbox: sb,
    database: await postgresDatabase('hosted_refused_token'),
    vaultKey: newVaultKey(),
    publicUrl: PUBLIC,
  });
  deployment = { url: PUBLIC, origin: new URL(server.direct).origin };
}, 60_000);

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

/** fetch as the proxy in front would route it: the public origin's requests reach the process. */
const viaProxy: typeof fetch = (input, init) => {
  const url = new URL(String(input));
  if (url.origin === new URL(PUBLIC).origin) return fetch(new URL(`${url.pathname}${url.search}`, deployment.origin), init);
  return fetch(input, init);
};

/** A new client signed in (read access) and Allowed: its code, not yet traded. */
async function freshCode(): Promise<CodeInHand> {
  const clientId = await registerClient(deployment.origin, REDIRECT);
  const { url, verifier } = authorizationRequest(deployment, clientId, REDIRECT);
  const back = await signInByForms(url, REDIRECT, { keyId: sb.keys.live.key_id, secret: sb.keys.live.secret }, deployment.origin, viaProxy);
  return { clientId, redirect: REDIRECT, verifier, code: String(back.get('code')) };
}

const trade = (form: Record<string, string>): Promise<TokenAnswer> => tokenRequest(deployment.origin, form);

/** A token request naming each of `resources` (the parameter given more than once). */
async function tradeNaming(form: Record<string, string>, resources: string[]): Promise<TokenAnswer> {
  const body = new URLSearchParams(Object.entries(form).filter(([name]) => name !== 'resource'));
  for (const resource of resources) body.append('resource', resource);
  const res = await fetch(`${deployment.origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: body.toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
const works = async (accessToken: string): Promise<boolean> => (await mcpStatus(server.direct, accessToken)) === 200;

function expectTokens(answer: TokenAnswer, what: string): Record<string, any> {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

function expectRefused(answer: TokenAnswer, error: string, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(400);
  expect(answer.body.error, what).toBe(error);
}

type Refusal = [what: string, form: Record<string, string>, error: string];

/** The form with each resource that is not this one: invalid_target. */
const wrongResources = (form: Record<string, string>): Refusal[] =>
  OTHER_RESOURCES.map((resource) => [`resource ${resource}`, { ...form, resource }, 'invalid_target']);

describe('a refused token request leaves the grant as it was', () => {
  it('a refresh refused for its resource, scope or client: the refresh token and its access token still work', async () => {
    const held = await freshCode();
    const tokens = expectTokens(await trade(codeForm(held, deployment)), 'the code');
    const right = refreshForm(held.clientId, tokens.refresh_token, deployment);
    const otherClient = await registerClient(deployment.origin, REDIRECT);
    const refusals: Refusal[] = [
      ...wrongResources(right),
      ['a scope not granted', { ...right, scope: 'books.write' }, 'invalid_scope'],
      ['another client', { ...right, client_id: otherClient }, 'invalid_grant'],
    ];
    for (const [what, form, error] of refusals) {
      expectRefused(await trade(form), error, what);
      expect(await works(tokens.access_token), `the access token after ${what}`).toBe(true);
    }
    expectRefused(await tradeNaming(right, [PUBLIC, 'http://other.example/mcp']), 'invalid_target', 'this resource and another');
    expect(await works(tokens.access_token)).toBe(true);
    const renewed = expectTokens(await trade(right), 'the right refresh after the refusals');
    expect(await works(renewed.access_token)).toBe(true);
  });

  it('a code exchange refused for its resource, verifier, redirect URI or client: the right one then gets its tokens', async () => {
    const held = await freshCode();
    const right = codeForm(held, deployment);
    const otherClient = await registerClient(deployment.origin, REDIRECT);
    const refusals: Refusal[] = [
      ...wrongResources(right),
      ['a wrong verifier', { ...right, code_verifier: `${held.verifier.slice(0, -4)}AAAA` }, 'invalid_grant'],
      ['another redirect URI', { ...right, redirect_uri: 'http://127.0.0.1:9/elsewhere' }, 'invalid_grant'],
      ['another client', { ...right, client_id: otherClient }, 'invalid_grant'],
    ];
    for (const [what, form, error] of refusals) expectRefused(await trade(form), error, what);
    const tokens = expectTokens(await trade(right), 'the right exchange after the refusals');
    expect(await works(tokens.access_token)).toBe(true);
  });

  it(`takes ${SAME_RESOURCE.join(', ')} as the public URL, in a code exchange and in each refresh`, async () => {
    for (const resource of SAME_RESOURCE) {
      const held = await freshCode();
      const tokens = expectTokens(await trade({ ...codeForm(held, deployment), resource }), `the code with ${resource}`);
      expect(await works(tokens.access_token), resource).toBe(true);
      const renewed = expectTokens(
        await trade({ ...refreshForm(held.clientId, tokens.refresh_token, deployment), resource }),
        `a refresh with ${resource}`,
      );
      expect(await works(renewed.access_token), resource).toBe(true);
    }
  });
});
