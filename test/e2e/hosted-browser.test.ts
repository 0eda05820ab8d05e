// Hosted mode end to end in a real browser (Chromium from the registry, one for the file): an MCP client
// with the v2 SDK's OAuth provider starts the flow, the browser fills our sign-in page (Key ID, Secret,
// Continue, Allow) and the client's tool calls answer that business's books, checked against the sandbox's
// raw API. Then: Deny, a wrong secret, two businesses signed in at once each seeing only its own books, a
// refresh token that rotates, a token asked for another resource, a revoked grant, and a key suspended in
// the sandbox.

import type { Client } from '@modelcontextprotocol/client';
import chromium from '@sparticuz/chromium';
import { type Browser, type BrowserContext, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, listAll, signIn, signInRaw, wrongSecret } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, spawnHostedServer } from './support/hosted.js';
import {
  type Callback,
  fillKey,
  MemoryOAuthProvider,
  oauthClient,
  type Signer,
  signInThrough,
  startCallback,
  startFlow,
} from './support/oauth-client.js';

let sb: TestSandbox;
let server: HostedServer;
let browser: Browser;
let context: BrowserContext;
let callback: Callback;

interface Business {
  id: number;
  name: string;
  signer: Signer;
}

/** A new business of the sandbox with its live key. */
async function newBusiness(): Promise<Business> {
  const made = await sb.admin('POST', '/businesses', {});
  expect(made.status).toBe(201);
  sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
  return { id: made.body.id, name: made.body.name, signer: { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret } };
}

const newProvider = (name = 'Test Assistant'): MemoryOAuthProvider => new MemoryOAuthProvider(callback.url, name);
const rawSession = (b: Business) => signIn(sb.baseUrl, { key_id: b.signer.keyId, secret: b.signer.secret });

async function connect(business: Business): Promise<{ client: Client; provider: MemoryOAuthProvider }> {
  const page = await context.newPage();
  try {
    const provider = newProvider();
    return { client: await signInThrough(page, server.url, provider, callback, business.signer), provider };
  } finally {
    await page.close();
  }
}

const tokenEndpoint = (): string => `${server.origin}/oauth/token`;
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

beforeAll(async () => {
  const [started, exe, listening] = await Promise.all([
    startTestSandbox({ rateLimit: 1_000_000, signInLimit: 1000 }),
    chromium.executablePath(),
    startCallback(),
  ]);
  sb = started;
  callback = listening;
  const [hosted, launched] = await Promise.all([
    spawnHostedServer({ sandbox: sb, database: await postgresDatabase('hosted_browser'), vaultKey: newVaultKey() }),
    playwright.launch({ executablePath: exe, args: chromium.args, headless: true }),
  ]);
  server = hosted;
  browser = launched;
  // Chromium from this package runs as one process, which ends with its last context: the file uses one,
  // and one page of it stays open.
  context = await browser.newContext();
  await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
  await sb?.close();
});

describe('signing in through the browser', () => {
  it('connects a client to the business whose key was given: its tool calls answer that business books', async () => {
    const business = await newBusiness();
    const page = await context.newPage();
    const provider = newProvider();
    const first = await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    expect(await page.title()).toMatch(/Sign in/);
    await fillKey(page, business.signer);
    // The second step shows the business, its mode and what the assistant may do, as the service told it.
    expect(await page.locator('#business').textContent()).toBe(business.name);
    expect(await page.locator('#mode').textContent()).toMatch(/^Live/);
    expect(await page.getByRole('group', { name: 'What the assistant may do' }).getByRole('radio').count()).toBe(2);
    await page.getByLabel(/and create customers and draft invoices/).check();
    const returned = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const back = await returned;
    expect(back.searchParams.get('iss')).toBe(server.origin);
    await first.transport.finishAuth(back.searchParams);
    await page.close();
    const { client, transport } = oauthClient(server.url, provider);
    await client.connect(transport);
    const raw = await listAll(await rawSession(business), '/api/v1/invoices');
    const invoice = raw.at(-1);
    const got = await client.callTool({ name: 'get_invoice', arguments: { id: invoice.id } });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ id: invoice.id, number: invoice.number, total: invoice.total });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('create_draft_invoice');
    await client.close();
  });

  it('Deny sends the client back with access_denied', async () => {
    const page = await context.newPage();
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    const returned = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await returned;
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect(back.searchParams.get('iss')).toBe(server.origin);
    await page.close();
  });

  it('says a secret is wrong, in the service words, and keeps the person on the page', async () => {
    const business = await newBusiness();
    const wrong = { keyId: business.signer.keyId, secret: wrongSecret(business.signer.secret) };
    const truth = await signInRaw(sb.baseUrl, { key_id: wrong.keyId, secret: wrong.secret });
    expect(truth.status).toBe(401);
    const page = await context.newPage();
    const provider = newProvider();
    await startFlow(server.url, provider);
    await page.goto(String(provider.authorizationUrl));
    await fillKey(page, wrong);
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('Wrong key ID or secret');
    expect(await alert.textContent()).toContain(truth.body.message);
    expect(await page.getByLabel('Key ID').inputValue()).toBe(wrong.keyId);
    expect(await page.getByLabel('Secret').inputValue()).toBe('');
    expect(await page.getByLabel('Secret').getAttribute('aria-invalid')).toBe('true');
    expect(await page.content()).not.toContain(wrong.secret);
    await page.close();
  });
});

describe('two businesses at once', () => {
  const kinds = [
    ['invoices', 'get_invoice'],
    ['customers', 'get_customer'],
    ['payments', 'get_payment'],
    ['products', 'get_product'],
    ['quotes', 'get_quote'],
  ] as const;

  it('each token reaches only its own business books, by every tool and resource', async () => {
    const [a, b] = [await newBusiness(), await newBusiness()];
    const ca = await connect(a);
    const cb = await connect(b);
    const truth = new Map<number, Map<string, Json[]>>();
    for (const business of [a, b]) {
      const session = await rawSession(business);
      truth.set(
        business.id,
        new Map(await Promise.all(kinds.map(async ([kind]) => [kind, await listAll(session, `/api/v1/${kind}`)] as const))),
      );
    }
    const pairs = [
      [ca.client, a, b],
      [cb.client, b, a],
    ] as const;
    for (const [client, own, other] of pairs) {
      const listed = await client.callTool({ name: 'list_invoices', arguments: { per_page: 100 } });
      const ownInvoices = truth.get(own.id)?.get('invoices') ?? [];
      expect((listed.structuredContent as Json).data.map((i: Json) => i.id)).toEqual(ownInvoices.slice(0, 100).map((i) => i.id));
      const business = await client.readResource({ uri: 'invoicing://business' });
      expect(JSON.parse(business.contents[0]?.text ?? '{}').business).toEqual({ id: own.id, name: own.name });
      for (const [kind, tool] of kinds) {
        const mine = truth.get(own.id)?.get(kind)?.[0];
        const theirs = truth.get(other.id)?.get(kind)?.[0];
        expect((await client.callTool({ name: tool, arguments: { id: mine.id } })).isError).toBeFalsy();
        const refused = await client.callTool({ name: tool, arguments: { id: theirs.id } });
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused.content)).toMatch(/not found|No /i);
        await expect(client.readResource({ uri: `invoicing://${kind}/${theirs.id}` })).rejects.toThrow();
        const read = await client.readResource({ uri: `invoicing://${kind}/${mine.id}` });
        expect(JSON.parse(read.contents[0]?.text ?? '{}').id).toBe(mine.id);
      }
    }
    await Promise.all([ca.client.close(), cb.client.close()]);
  });
});

describe('tokens', () => {
  it('rotates the refresh token on use; a used one is refused and ends the grant', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    const tokens = provider.tokens();
    const clientId = String(provider.clientInformation()?.client_id);
    expect(tokens?.refresh_token).toBeTruthy();
    const refresh = (token: string, resource = server.url) =>
      fetch(tokenEndpoint(), form({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId, resource }));
    const renewed = await refresh(String(tokens?.refresh_token));
    const body = (await renewed.json()) as Json;
    expect(renewed.status, JSON.stringify(body)).toBe(200);
    expect(body.refresh_token).toBeTruthy();
    expect(body.refresh_token).not.toBe(tokens?.refresh_token);
    const again = await refresh(String(tokens?.refresh_token));
    expect(again.status).toBe(400);
    expect(((await again.json()) as Json).error).toBe('invalid_grant');
    // A refresh token used again is taken as stolen: its grant is revoked, the new token with it.
    expect((await refresh(String(body.refresh_token))).status).toBe(400);
    await client.close();
  });

  it('gives no token for another resource', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    const clientId = String(provider.clientInformation()?.client_id);
    const elsewhere = await fetch(
      tokenEndpoint(),
      form({
        grant_type: 'refresh_token',
        refresh_token: String(provider.tokens()?.refresh_token),
        client_id: clientId,
        resource: 'http://127.0.0.1:1/mcp',
      }),
    );
    expect(elsewhere.status).toBe(400);
    expect(((await elsewhere.json()) as Json).error).toBe('invalid_target');
    await client.close();
  });

  it('a revoked grant reaches nothing more', async () => {
    const business = await newBusiness();
    const { client, provider } = await connect(business);
    expect((await client.callTool({ name: 'list_customers', arguments: {} })).isError).toBeFalsy();
    const tokens = provider.tokens();
    const clientId = String(provider.clientInformation()?.client_id);
    const revoked = await fetch(
      `${server.origin}/oauth/revoke`,
      form({ token: String(tokens?.refresh_token), token_type_hint: 'refresh_token', client_id: clientId }),
    );
    expect(revoked.status).toBe(200);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens?.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(client.callTool({ name: 'list_customers', arguments: {} })).rejects.toThrow();
  });

  it('a key suspended in the sandbox: tool calls say so, in the service words', async () => {
    const business = await newBusiness();
    const { client } = await connect(business);
    expect((await client.callTool({ name: 'list_invoices', arguments: {} })).isError).toBeFalsy();
    await sb.suspend(business.signer.keyId);
    const truth = await signInRaw(sb.baseUrl, { key_id: business.signer.keyId, secret: business.signer.secret });
    expect(truth.status).toBe(403);
    const refused = await client.callTool({ name: 'list_invoices', arguments: { page: 2 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain(truth.body.message);
    await client.close();
  });
});
