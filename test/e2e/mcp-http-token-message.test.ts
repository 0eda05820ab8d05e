// Without its bearer token, an HTTP client is told plainly what to send: the 401's challenge names our
// realm and says, in RFC 6750's error_description, that this is a static token and not OAuth; it offers
// no resource_metadata (there is no authorization server to discover), and the SDK clients, which start
// no OAuth flow without an auth provider, carry our message (v1 in its error's message; v2's version probe
// says "requires authorization (HTTP 401)" and keeps our body in the error's data).

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type Sdk } from './support/clients.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';

const TOKEN = 'a-long-random-http-token-for-tests';
const file = sandboxForFile();
let server: HttpServer;
beforeAll(async () => {
  server = await spawnHttpServer(['--http-token', TOKEN], file.env);
});
afterAll(() => server?.close());

const initialize = (headers: Record<string, string>) =>
  request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });

describe('the 401 without the token', () => {
  it('challenges with our realm and words, and no resource_metadata', async () => {
    const res = await initialize({});
    const body = (await res.body.json()) as { message: string };
    expect(res.statusCode).toBe(401);
    const header = String(res.headers['www-authenticate']);
    expect(header).toMatch(/^Bearer realm="invoicing-mcp", /);
    expect(header).toContain('--http-token');
    expect(header).not.toContain('resource_metadata');
    expect(header).not.toContain('invalid_token');
    expect(body.message).toContain('not OAuth');
  });

  it('says invalid_token for a wrong token, without echoing it', async () => {
    const res = await initialize({ authorization: 'Bearer not-the-token-at-all-0000' });
    const text = await res.body.text();
    expect(res.statusCode).toBe(401);
    expect(String(res.headers['www-authenticate'])).toContain('error="invalid_token"');
    expect(text).toContain('not the one this server was started with');
    expect(text).not.toContain('not-the-token-at-all-0000');
  });

  it.each(['v2', 'v1'] as Sdk[])('the %s client shows our message', async (sdk) => {
    const err = await connectClient(sdk, { http: server.url }).then(
      async (c) => {
        await c.close();
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(err).not.toBeNull();
    const e = err as Error & { data?: { status?: number; text?: string } };
    expect(`${e.message} ${e.data?.text ?? ''}`).toContain('not OAuth');
    if (sdk === 'v2') expect(e.data?.status).toBe(401);
  });
});
