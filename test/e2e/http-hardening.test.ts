// The HTTP server against a hostile page or a careless client, over real sockets: a DNS-rebinding page
// reaches no loopback address we bind to (whatever its spelling), a refused request (401, 403, 413) ends
// its connection without the body being read, and what the SDK refuses is logged without the body.
// After each, a normal client still gets its answers. Each block starts a server of its own and runs beside
// the others; the tests of a block share it, one after the other.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { connectClient, textOf } from './support/clients.js';
import { postHead, rawExchange } from './support/raw-http.js';
import { CLI, freePort, type HttpServer, keyEnv, serverEnv, spawnHttpServer } from './support/server.js';

const TOKEN = 'hardening-token-0123456789';
const EVIL = 'rebind.evil.example';

const createCall = (name: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_customer', arguments: { name } } });

/** A raw 2025-era POST (no session: served statelessly), with these Host and Origin headers. */
async function rawPost(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body,
  });
  await res.text();
  return res.status;
}

/** The same request as raw bytes, so the Host header is what we say (fetch would not let us). */
async function withHost(url: string, host: string, body: string, origin?: string) {
  const head = postHead(url, Buffer.byteLength(body), { host, 'mcp-protocol-version': '2025-11-25', ...(origin ? { origin } : {}) });
  return rawExchange(url, head + body, 5_000);
}

// One sandbox for the file: each block's server has a key of its own on it, and what a test creates is named for it.
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb?.close());

describe.each(['127.0.0.2', '127.1.2.3', '127.0.0.001', 'LOCALHOST'])('bound to loopback as --host %s', { concurrent: true }, (host) => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await spawnHttpServer(['--host', host], keyEnv(sb, await sb.makeKey('live')));
  });
  afterAll(() => server?.close());

  it('refuses a rebinding Host and a foreign Origin with 403, creating nothing; its own names still work', async () => {
    const name = `Rebound ${host}`;
    const rebound = await withHost(server.url, `${EVIL}:${new URL(server.url).port}`, createCall(name), `http://${EVIL}`);
    expect(rebound.status).toBe(403);
    expect(rebound.text.toLowerCase()).toContain('connection: close');
    expect((await withHost(server.url, new URL(server.url).host, createCall(name), 'https://evil.example')).status).toBe(403);
    expect((await withHost(server.url, EVIL, createCall(name))).status).toBe(403);

    const c = await connectClient('v2', { http: server.url });
    try {
      const found = await c.client.callTool({ name: 'list_customers', arguments: { search: name } });
      expect(found.structuredContent.data).toEqual([]);
      // The same request under its own Host is served: the refusal above was the Host, nothing else.
      expect(await rawPost(server.url, createCall(name), {})).toBe(200);
      const after = await c.client.callTool({ name: 'list_customers', arguments: { search: name } });
      expect(after.structuredContent.data.map((x: { name: string }) => x.name)).toEqual([name]);
    } finally {
      await c.close();
    }
  });
});

describe('refusals end the connection, before any body is read', { concurrent: true }, () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await spawnHttpServer(['--http-token', TOKEN, '--log-level', 'debug'], keyEnv(sb, sb.keys.test));
  });
  afterAll(() => server?.close());

  it.sequential('401: a request without the token promising 1 MB gets its answer and is hung up on at once', async () => {
    const res = await rawExchange(server.url, `${postHead(server.url, 1_000_000)}{"jsonrpc"`, 3_000);
    expect(res.status).toBe(401);
    expect(res.closedAfterMs).toBeLessThan(1_000);
  });

  it.sequential('403: a foreign Host is hung up on even with the token', async () => {
    const res = await rawExchange(server.url, postHead(server.url, 1_000_000, { host: EVIL, authorization: `Bearer ${TOKEN}` }), 3_000);
    expect(res.status).toBe(403);
    expect(res.closedAfterMs).toBeLessThan(1_000);
  });

  it.sequential('413: a body over 1 MiB with the token is refused and the connection closed', async () => {
    const body = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const res = await rawExchange(
      server.url,
      Buffer.concat([Buffer.from(postHead(server.url, body.length, { authorization: `Bearer ${TOKEN}` })), body]),
      5_000,
    );
    expect(res.status).toBe(413);
  });

  it.sequential('arguments nested 5,000 deep get 400 (not 500), the refusal is logged without the body, and calls go on', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const body = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_customers","arguments":{"search":${deep}}}}`;
    const before = server.stderr().length;
    expect(await rawPost(server.url, body, { authorization: `Bearer ${TOKEN}` })).toBe(400);
    const c = await connectClient('v1', { http: server.url, token: TOKEN });
    try {
      const listed = await c.client.callTool({ name: 'list_customers', arguments: { per_page: 1 } });
      expect(textOf(listed)).toMatch(/^customers 1-1 of \d+/);
    } finally {
      await c.close();
    }
    const logged = server.stderr().slice(before);
    expect(logged).toContain('JSON nested deeper than 64 levels');
    expect(logged).not.toContain('{"a":{"a":');
  });
});

describe("the stdio mode's --webhook-port listener", { concurrent: true }, () => {
  it('holds a silent or trickling connection no longer than its timeouts, and still takes a delivery', async () => {
    const port = await freePort();
    const env = { ...keyEnv(sb, await sb.makeKey('live')), SVC_WEBHOOK_SECRET: `whsec_${'w'.repeat(32)}`, SVC_POLL_SECONDS: '0' };
    // No mirror: what is checked is how long the listener holds a connection, not where a delivery goes (with
    // a mirror, the webhook secret would have the server read the main business's books in full at start).
    const flags = ['--webhook-port', String(port), '--headers-timeout', '1', '--request-timeout', '2', '--mirror', 'off'];
    const child = spawn(process.execPath, [CLI, ...flags], { env: serverEnv(env), stdio: ['pipe', 'ignore', 'pipe'] });
    try {
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          if (stderr.includes('Webhooks: register')) resolve();
        });
        child.once('exit', () => reject(new Error(stderr)));
      });
      const url = `http://127.0.0.1:${port}/webhooks`;
      const silent = await rawExchange(url, '', 5_000);
      expect(silent.status).toBe(408);
      expect(silent.closedAfterMs).toBeLessThan(2_500);
      const trickled = await rawExchange(url, `${postHead(url, 1000)}{"id":`, 6_000);
      expect(trickled.status).toBe(408);
      expect(trickled.closedAfterMs).toBeLessThan(3_500);
      // A delivery that is not signed gets its 400 at once: the listener still serves.
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(400);
    } finally {
      child.kill();
    }
  });
});
