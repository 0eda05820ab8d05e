// The MCP Inspector's sign-in to hosted mode, played request for request as its version 2.12.0 makes them, so
// that a change of ours that would stop it fails `npm run test:all` (the real Inspector, driven in a browser, runs
// with `npm run test:inspector`). Its web page only navigates (to our authorization URL and back to its
// callback); its backend, in Node, makes every other request, so none of them is cross-origin: discovery
// from the 401, registration as a native public client with a loopback redirect URI, an authorization
// request for every scope with offline_access and prompt=consent, the code traded with the resource, then
// /mcp over the 2025-11-25 handshake. Its command-line client reuses the web client's registration from
// another loopback port, and clearing its stored state revokes the refresh token.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { connectClient } from './support/clients.js';
import { invoiceFigures } from './support/expect.js';
import { openSignIn } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';

const WEB_CALLBACK = 'http://127.0.0.1:6274/oauth/callback';
const CLI_CALLBACK = 'http://127.0.0.1:6276/oauth/callback';

let sb: TestSandbox;
let server: HostedServer;
let as: Record<string, any>;
let clientId: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('hosted_inspector'), vaultKey: newVaultKey() });
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });
const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
  body: new URLSearchParams(fields).toString(),
});

interface Granted {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** One authorization as the Inspector makes it: PKCE, its scope, prompt=consent and the resource; the person Allows. */
async function authorize(redirect: string, scope: string, access: 'read' | 'write'): Promise<Granted> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(32).toString('hex');
  const url = new URL(as.authorization_endpoint);
  const params = {
    response_type: 'code',
    client_id: clientId,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    redirect_uri: redirect,
    state,
    scope,
    prompt: 'consent',
    resource: server.url,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const signInPage = await openSignIn(url, redirect, server.origin);
  const back = await signInPage.allow(await signInPage.continueWith({ keyId: sb.keys.live.key_id, secret: sb.keys.live.secret }), access);
  expect(back.get('state')).toBe(state);
  expect(back.get('iss')).toBe(as.issuer);
  const fields = { grant_type: 'authorization_code', code: back.get('code')!, code_verifier: verifier, redirect_uri: redirect };
  const token = await json(await fetch(as.token_endpoint, form({ ...fields, resource: server.url, client_id: clientId })));
  expect(token.status).toBe(200);
  expect(token.body.token_type).toBe('Bearer');
  // offline_access asked for: a refresh token, so the Inspector renews without a new sign-in.
  expect(token.body.refresh_token).toEqual(expect.any(String));
  return token.body as Granted;
}

describe('the MCP Inspector (2.12.0) signing in', () => {
  it('finds the authorization server from the 401 and registers as it does: a native public client on loopback', async () => {
    const refused = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }),
    });
    expect(refused.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1];
    const resource = (await json(await fetch(metadataUrl!))).body;
    expect(resource.resource).toBe(server.url);
    as = (await json(await fetch(new URL('/.well-known/oauth-authorization-server', resource.authorization_servers[0])))).body;
    const registration = {
      redirect_uris: [WEB_CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      scope: [...resource.scopes_supported, 'offline_access'].join(' '),
      application_type: 'native',
    };
    const registered = await json(
      await fetch(as.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registration),
      }),
    );
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      redirect_uris: [WEB_CALLBACK],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    clientId = registered.body.client_id;
  });

  it("its web client's grant answers that business books over the 2025-11-25 handshake", async () => {
    const granted = await authorize(WEB_CALLBACK, 'books.read books.write offline_access', 'write');
    expect(granted.scope.split(' ')).toEqual(expect.arrayContaining(['books.read', 'books.write']));
    const invoice = (await listAll(await signIn(sb.baseUrl, sb.keys.live), '/api/v1/invoices')).at(-1);
    const connected = await connectClient('v1', { http: server.url, token: granted.access_token });
    try {
      expect(connected.protocolVersion).toBe('2025-11-25');
      const got = await connected.client.callTool({ name: 'get_invoice', arguments: { id: invoice.id } });
      expect(got.isError).toBeFalsy();
      expect(got.structuredContent).toMatchObject(invoiceFigures(invoice));
      expect((await connected.client.listTools()).tools.map((t) => t.name)).toContain('create_draft_invoice');
    } finally {
      await connected.close();
    }
  });

  it("its command-line client signs in with the web client's registration from another loopback port, and renews", async () => {
    const granted = await authorize(CLI_CALLBACK, 'books.read offline_access', 'read');
    const renewed = await json(
      await fetch(
        as.token_endpoint,
        form({ grant_type: 'refresh_token', refresh_token: granted.refresh_token, client_id: clientId, resource: server.url }),
      ),
    );
    expect(renewed.status).toBe(200);
    expect(renewed.body.refresh_token).not.toBe(granted.refresh_token);
    const connected = await connectClient('v1', { http: server.url, token: renewed.body.access_token });
    try {
      const tools = (await connected.client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('get_invoice');
      expect(tools).not.toContain('create_draft_invoice');
    } finally {
      await connected.close();
    }
    // Only the port may differ: another path on loopback is not the client's.
    const elsewhere = new URL(as.authorization_endpoint);
    elsewhere.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      redirect_uri: 'http://127.0.0.1:6276/elsewhere',
      resource: server.url,
    }).toString();
    const refused = await fetch(elsewhere, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('redirect_uri did not match');
  });

  it('clearing its stored state revokes the refresh token as it does, and the grant ends', async () => {
    const granted = await authorize(WEB_CALLBACK, 'books.read books.write offline_access', 'read');
    const before = await connectClient('v1', { http: server.url, token: granted.access_token });
    await before.close();
    const revoked = await fetch(
      as.revocation_endpoint,
      form({ token: granted.refresh_token, token_type_hint: 'refresh_token', client_id: clientId }),
    );
    expect(revoked.status).toBe(200);
    const after = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${granted.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(after.status).toBe(401);
  });
});
