// A service that cannot be reached is reported as such, and where, within the retry budget: never as the
// rate limit (attempts that got no answer do not count against the sign-in throttle). A closed port through
// the built server (a tool call and `check`), with a one-second --retry-budget; an address that accepts
// connections and never answers through the API client with a short per-attempt time-out.
import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiClient, NetworkFault } from '../../src/api/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { connectClient, textOf } from './support/clients.js';
import { CLI, freePort, serverEnv } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const KEY = { SVC_KEY_ID: 'svck_test_unreachable1', SVC_SECRET: 'svc_test_unreachable_secret1' };
const run = promisify(execFile);

describe('a closed port', () => {
  // A refused connection is tried once more, not until the retry budget runs out: each call signs in twice,
  // so five calls make more unanswered sign-ins than the throttle's 8 a minute, which they must not count.
  const CALLS = 5;

  it('a tool call says the service cannot be reached at that address, not the rate limit', async () => {
    const base = `http://127.0.0.1:${await freePort()}`;
    const mcp = await connectClient('v2', { linked: await stdioHere([], { SVC_BASE_URL: base, ...KEY }) });
    try {
      const started = Date.now();
      const results = [];
      for (let i = 0; i < CALLS; i++) results.push(await mcp.client.callTool({ name: 'list_customers', arguments: {} }));
      results.push(await mcp.client.callTool({ name: 'report_owed', arguments: {} }));
      // About a second each.
      expect(Date.now() - started).toBeLessThan((CALLS + 1) * 1_500);
      for (const result of results) {
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain(`cannot be reached at ${base}`);
        expect(textOf(result)).toContain('ECONNREFUSED');
        expect(textOf(result)).not.toMatch(/rate limit|signed in|sign-ins/i);
      }
    } finally {
      await mcp.close();
    }
  });

  it('`check` says the same and exits 1', async () => {
    const base = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const env = serverEnv({ SVC_BASE_URL: base, ...KEY });
    const failed = await run(process.execPath, [CLI, 'check'], { env }).catch((e: unknown) => e);
    const err = failed as { code: number; stdout: string; stderr: string };
    // A refused connection is tried once more, not for the whole 30 s retry budget: well under it, with room
    // for a process start on a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain(`cannot be reached at ${base}`);
    expect(err.stderr).not.toMatch(/rate limit|signed in/i);
    expect(err.stdout).toBe('');
  });
});

describe('an address that accepts connections and never answers', () => {
  const sockets: Socket[] = [];
  let silent: Server;
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent?.close(resolve));
  });

  it('the call fails within the retry budget, saying the service did not answer', async () => {
    silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const base = `http://127.0.0.1:${port}`;
    const api = createApiClient(
      { baseUrl: base, keyId: KEY.SVC_KEY_ID, secret: KEY.SVC_SECRET },
      { logger: silentLogger(), options: { requestTimeoutMs: 200, retryBudgetMs: 1_000, backoffBaseMs: 50, backoffMaxMs: 200 } },
    );
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const err = await api.customers.list().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(NetworkFault);
        expect((err as Error).message).toContain(`cannot be reached at ${base}: it did not answer within`);
        expect((err as Error).message).not.toMatch(/rate limit/i);
        expect(Date.now() - started).toBeLessThan(1_000 + 200 + 1_000);
      }
      expect(api.stats().signIns).toBe(0);
    } finally {
      await api.close();
    }
  });
});
