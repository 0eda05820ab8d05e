// Hosted mode's discovery, as the MCP authorization specification asks: a 401 on /mcp names the protected
// resource metadata (RFC 9728), which names the authorization server, whose metadata (RFC 8414) offers the
// authorization code with PKCE S256 only, registration, revocation and client ID metadata documents.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/hosted/signin/html.js';
import { signInRaw, wrongSecret } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn, signInByForms } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { MemoryOAuthProvider, oauthClient, startFlow } from './support/oauth-client.js';
import { CLI, serverEnv } from './support/server.js';

const GRANT_LIMIT = 4;
const PRE = {
  client_id: 'preregistered-assistant',
  client_name: 'Preregistered Assistant',
  redirect_uris: ['http://127.0.0.1:9/pre'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};
/** The clients registered in configuration, in a file of this test's own. */
function clientsFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'invoicing-mcp-clients-')), 'clients.json');
  writeFileSync(file, JSON.stringify([PRE]));
  return file;
}

let sb: TestSandbox;
let server: HostedServer;

beforeAll(async () => {
  // The service's own sign-in limit (10 a minute from one address): the last test reaches it.
  sb = await startTestSandbox({ signInLimit: 10 });
  server = await startHostedServer({
    sandbox: sb,
    database: await postgresDatabase('hosted_discovery'),
    vaultKey: newVaultKey(),
    args: ['--grant-rate-limit', String(GRANT_LIMIT), '--oauth-clients', clientsFile()],
  });
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
};

describe('hosted start', () => {
  it('refuses to start without the vault key, naming it (exit code 2)', () => {
    const run = spawnSync(process.execPath, [CLI, '--hosted', '--public-url', server.url, '--mirror', 'postgres://127.0.0.1:1/none'], {
      env: serverEnv({ SVC_BASE_URL: sb.baseUrl }),
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('INVOICING_MCP_VAULT_KEY is not set');
    expect(run.stdout).toBe('');
  });
});

describe('hosted discovery', () => {
  it('answers /mcp without a token with 401 and a challenge naming the protected resource metadata', async () => {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`);
    const wrong = await fetch(server.url, {
      method: 'POST',
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('serves the protected resource metadata for /mcp', async () => {
    const prm = await getJson(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(prm.status).toBe(200);
    expect(prm.body.resource).toBe(server.url);
    expect(prm.body.authorization_servers).toEqual([server.origin]);
    expect(prm.body.scopes_supported).toEqual(['books.read', 'books.write']);
  });

  it('serves the authorization server metadata at both well-known places: code with S256 only, registration, revocation', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const as = await getJson(`${server.origin}${path}`);
      expect(as.status).toBe(200);
      expect(as.body.issuer).toBe(server.origin);
      expect(as.body.code_challenge_methods_supported).toEqual(['S256']);
      expect(as.body.response_types_supported).toEqual(['code']);
      expect(as.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
      expect(as.body.registration_endpoint).toBe(`${server.origin}/oauth/register`);
      expect(as.body.revocation_endpoint).toBe(`${server.origin}/oauth/revoke`);
      expect(as.body.authorization_response_iss_parameter_supported).toBe(true);
      expect(as.body.client_id_metadata_document_supported).toBe(true);
    }
  });
});

describe('clients registered in configuration', () => {
  it('signs a client of --oauth-clients in without registering it, under its configured name', async () => {
    const made = await sb.admin('POST', '/businesses', {});
    sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
    const provider = new MemoryOAuthProvider(PRE.redirect_uris[0] as string, 'unused name');
    provider.saveClientInformation({ client_id: PRE.client_id });
    const flow = await startFlow(server.url, provider);
    expect(provider.authorizationUrl?.searchParams.get('client_id')).toBe(PRE.client_id);
    const signIn = await openSignIn(provider.authorizationUrl as URL, PRE.redirect_uris[0] as string, server.origin);
    const consent = await signIn.continueWith({ keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret });
    expect(consent).toContain(`Allow ${PRE.client_name} to use these books?`);
    await flow.transport.finishAuth(await signIn.allow(consent));
    const { client, transport } = oauthClient(server.url, provider);
    await client.connect(transport);
    const got = await client.readResource({ uri: 'invoicing://business' });
    expect(JSON.parse(got.contents[0]?.text ?? '{}').business).toEqual({ id: made.body.id, name: made.body.name });
    await client.close();
  });
});

describe('per-grant request limits', () => {
  it('answers a grant past its requests a minute with 429 and Retry-After', async () => {
    const made = await sb.admin('POST', '/businesses', {});
    sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
    const redirect = 'http://127.0.0.1:9/callback';
    const provider = new MemoryOAuthProvider(redirect, 'Busy Assistant');
    const flow = await startFlow(server.url, provider);
    const signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
    await flow.transport.finishAuth(await signInByForms(provider.authorizationUrl as URL, redirect, signer, server.origin));
    const send = () =>
      fetch(server.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.tokens()?.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
    const statuses: number[] = [];
    for (let i = 0; i < GRANT_LIMIT; i++) statuses.push((await send()).status);
    expect(statuses.every((s) => s !== 429 && s !== 401)).toBe(true);
    const over = await send();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await over.json()) as { message: string }).message).toContain(`more than ${GRANT_LIMIT} requests in a minute`);
  });
});

describe('the sign-in page over plain HTTP', () => {
  const REDIRECT = 'http://127.0.0.1:9/callback';
  const open = async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, 'Form Assistant');
    await startFlow(server.url, provider);
    return openSignIn(provider.authorizationUrl as URL, REDIRECT, server.origin);
  };
  const alertOf = (page: string): string => /<div class="alert" role="alert"[^>]*>(.*?)<\/div>/s.exec(page)?.[1] ?? '';

  it("says a key is suspended in the service's words, then holds wrong secrets back before they spend the service's limit", async () => {
    const made = await sb.admin('POST', '/businesses', {});
    sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
    const key = { key_id: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
    await sb.suspend(key.key_id);
    const suspended = await signInRaw(sb.baseUrl, key);
    expect(suspended.status).toBe(403);
    const flow = await open();
    const page = await flow.continueWith({ keyId: key.key_id, secret: key.secret });
    expect(alertOf(page)).toContain('The service refused this key');
    expect(alertOf(page)).toContain(escapeHtml(suspended.body.message));
    // The service allows 10 sign-ins a minute from one address, the whole deployment's: a page lets 3 sign-ins
    // that end in no grant through (the suspended key's was one), then says how long to wait, and the
    // service is left its allowance.
    const answers: string[] = [];
    for (let i = 0; i < 11; i++) answers.push(alertOf(await flow.continueWith({ keyId: key.key_id, secret: wrongSecret(key.secret) })));
    expect(answers.slice(0, 2).every((a) => a.includes('Wrong key ID or secret'))).toBe(true);
    for (const a of answers.slice(2))
      expect(a).toMatch(
        /Too many sign-in attempts.*Too many sign-ins on this sign-in page that had a wrong secret or never reached Allow\. Try again in 15 minutes/s,
      );
    const after = await signInRaw(sb.baseUrl, { key_id: key.key_id, secret: wrongSecret(key.secret) });
    expect(after.status).toBe(401);
  });
});
