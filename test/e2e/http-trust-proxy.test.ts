// The per-client caps behind a proxy, on the built server over HTTP: with --trust-proxy naming the proxy,
// each address it forwards in X-Forwarded-For holds its own share of sessions (an IPv6 one with every other of
// its /64); without it, the header is the client's own words and every request from the proxy's address is one client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HttpServerHere, keyEnv, spawnHttpServer } from './support/server.js';

const VERSION = '2025-11-25';
const servers: HttpServerHere[] = [];
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await sb?.close();
});

async function serve(args: string[]): Promise<string> {
  const server = await spawnHttpServer(['--max-sessions-per-client', '1', '--mirror', 'off', ...args], keyEnv(sb, sb.keys.test));
  servers.push(server);
  return server.url;
}

/** Opens a 2025-era session as a client behind the proxy at `forwardedFor`; the answer's status. */
async function initialize(url: string, forwardedFor: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'behind a proxy', version: '1' } },
    }),
  });
  await res.text();
  return res.status;
}

describe('per-client caps behind a proxy', () => {
  it('with --trust-proxy, count each forwarded address as a client of its own', async () => {
    const url = await serve(['--trust-proxy', '127.0.0.1']);
    expect(await initialize(url, '192.0.2.1')).toBe(200);
    expect(await initialize(url, '192.0.2.2')).toBe(200);
    expect(await initialize(url, '192.0.2.1')).toBe(429);
    // What a client wrote at the left of the proxy's entry changes nothing.
    expect(await initialize(url, '192.0.2.3, 192.0.2.2')).toBe(429);
  });

  it('count IPv6 clients by their /64: one host given a /64 is one client, whatever address of it it writes from', async () => {
    const url = await serve(['--trust-proxy', '127.0.0.1']);
    expect(await initialize(url, '2001:db8:1:2::1')).toBe(200);
    expect(await initialize(url, '2001:db8:1:2:ffff:0:0:7')).toBe(429);
    expect(await initialize(url, '2001:db8:1:3::1')).toBe(200);
  });

  it('without it, ignore X-Forwarded-For: the connection is the client', async () => {
    const url = await serve([]);
    expect(await initialize(url, '192.0.2.1')).toBe(200);
    expect(await initialize(url, '192.0.2.2')).toBe(429);
  });

  it('refuse a --trust-proxy entry that is not an address or a range, before serving', async () => {
    await expect(spawnHttpServer(['--trust-proxy', 'proxy.internal'])).rejects.toThrow(
      /--trust-proxy .*"proxy\.internal" is not an IP address/,
    );
  });
});
