// Streamable HTTP's guards: a foreign Origin (a browser page elsewhere) gets 403; with --http-token set,
// a missing or wrong bearer token gets 401, and the right one lets the SDK clients in.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, EXPECTED_VERSION, type Sdk } from './support/clients.js';
import { ALL_TOOLS } from './support/expect.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';

const TOKEN = 'e2e-token-0123456789abcdef';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** One raw initialize POST with the given headers; the status and body. */
async function post(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(INITIALIZE),
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

const file = sandboxForFile();

describe('without a token', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await spawnHttpServer([], file.env);
  });
  afterAll(() => server?.close());

  it('refuses a foreign Origin with 403', async () => {
    expect((await post(server.url, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('refuses a foreign Host (DNS rebinding) with 403', async () => {
    expect((await post(server.url, { host: 'evil.example' })).status).toBe(403);
  });

  it('accepts its own loopback Origin and a request without one', async () => {
    const own = new URL(server.url).origin;
    expect((await post(server.url, { origin: own })).status).toBe(200);
    expect((await post(server.url, {})).status).toBe(200);
  });
});

describe('with --http-token', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await spawnHttpServer(['--http-token', TOKEN], file.env);
  });
  afterAll(() => server?.close());

  it('says in its banner that clients must send the token', () => {
    expect(server.stderr()).toContain('(send Authorization: Bearer <token>)');
    expect(server.stderr()).not.toContain(TOKEN);
  });

  it('answers a missing token with 401 and a Bearer challenge', async () => {
    const res = await post(server.url, {});
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="invoicing-mcp", error_description="[^"]*not OAuth/);
    expect(JSON.parse(res.body).message).toContain('Authorization: Bearer');
  });

  it('answers a wrong token with 401', async () => {
    expect((await post(server.url, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post(server.url, { authorization: TOKEN })).status).toBe(401);
  });

  it('refuses a foreign Origin with 403 even with the right token', async () => {
    expect((await post(server.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })).status).toBe(403);
  });

  it.each(['v2', 'v1'] as Sdk[])('lets the %s client in with the right token', async (sdk) => {
    const c = await connectClient(sdk, { http: server.url, token: TOKEN });
    try {
      expect(c.protocolVersion).toBe(EXPECTED_VERSION[sdk]);
      expect((await c.client.listTools()).tools.length).toBe(ALL_TOOLS.length);
    } finally {
      await c.close();
    }
  });

  it.each(['v2', 'v1'] as Sdk[])('keeps the %s client out without it', async (sdk) => {
    await expect(connectClient(sdk, { http: server.url })).rejects.toThrow(/401|nauthori/);
  });
});
