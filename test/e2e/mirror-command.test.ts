// `invoicing-mcp mirror status` and `mirror forget`, as shipped: what a server on a real key left in its
// mirror file, counted again by the test from the sandbox's raw API; forgetting deletes it, and refuses
// while a server is syncing it. The same on a Postgres mirror, whose password shows nowhere. The servers
// watch the sandbox's small second business (a first read of a few dozen invoices), and the test waits for
// each state by reading the file or the database itself; the command runs once for each state it is
// asked about.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPostgresMirror } from '../../src/store/postgres/inspect.js';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { spawnStdioServer, untilMirror } from './support/mirror-servers.js';
import { CLI, serverEnv } from './support/server.js';

const run = promisify(execFile);
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 6000 });
});
afterAll(async () => {
  await sb?.close();
});

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { env: serverEnv(env) });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A live key of the small second business, and the environment of a server on it. */
async function smallBooks(extra: Record<string, string>) {
  const key = await sb.makeKey('live', ALL_SCOPES, 2);
  return { key, env: { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, ...extra } };
}

// Each test has a key, and so a file or database, of its own: they run side by side.
describe('invoicing-mcp mirror', { concurrent: true }, () => {
  it('after a crash: status tells the dead holder from a live one, forget goes ahead, and a restart syncs at once', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'mirror-crash-'));
    const folder = { folder: join(cache, 'invoicing-mcp') };
    // A long poll interval: a restarted server that waited for the lease to lapse would then wait for this.
    const { env } = await smallBooks({ SVC_POLL_SECONDS: '240', XDG_CACHE_HOME: cache });
    const first = spawnStdioServer([], env);
    expect(await untilMirror(folder, (r) => r.leaseUntil !== null, 20_000), 'the first server syncs').not.toBeNull();
    await first.crash();
    const after = (await cli(['mirror', 'status'], env)).stdout;
    expect(after).toContain('No server is syncing it now.');
    expect(after).toMatch(/The server that last synced it \(process \d+\) is no longer running: the next start takes over at once\./);
    const restarted = spawnStdioServer([], env);
    await restarted.serving();
    const started = Date.now();
    try {
      await untilMirror(folder, (r) => r.leaseUntil !== null && r.marks.size === 5, 20_000);
      const status = (await cli(['mirror', 'status'], env)).stdout;
      expect(status).toContain('A server is syncing it now.');
      expect(status).not.toContain('first read not finished');
      // Far under the 240 s a server waiting for the lease to lapse would take, with room for a loaded machine.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await restarted.crash();
    }
    const forgot = await cli(['mirror', 'forget'], env);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.stdout).toContain('Forgot the mirror at');
  });

  it('status prints what a server stored; forget refuses while it syncs, then deletes the file', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'mirror-cmd-'));
    const { key, env } = await smallBooks({ SVC_POLL_SECONDS: '1', XDG_CACHE_HOME: cache });
    const server = spawnStdioServer([], env);
    let status = '';
    try {
      const session = await signIn(sb.baseUrl, key);
      const invoices = (await listAll(session, '/api/v1/invoices')).length;
      const customers = (await listAll(session, '/api/v1/customers')).length;
      await untilMirror({ folder: join(cache, 'invoicing-mcp') }, (r) => r.marks.size === 5, 20_000);
      status = (await cli(['mirror', 'status'], env)).stdout;
      expect(status).toMatch(new RegExp(`Mirror: ${cache}/invoicing-mcp/mirror-[0-9a-f]+\\.db \\(`));
      expect(status).toContain(`key ${key.key_id}`);
      expect(status).not.toContain(key.secret);
      expect(status).toMatch(new RegExp(`invoices\\s+${invoices}\\s+read as of`));
      expect(status).toMatch(new RegExp(`customers\\s+${customers}\\s+read as of`));
      expect(status).toMatch(new RegExp(`lines\\s+\\d+\\s+for \\d+ of ${invoices} invoices`));
      expect(status).toContain('A server is syncing it now.');
      const refused = await cli(['mirror', 'forget'], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('a server is syncing');
    } finally {
      await server.close();
    }
    const path = /Mirror: (\S+)/.exec(status)?.[1] as string;
    expect(existsSync(path)).toBe(true);
    expect((await cli(['mirror', 'status'], env)).stdout).toContain('No server is syncing it now.');
    const forgot = await cli(['mirror', 'forget'], env);
    expect(forgot.stdout).toContain(`Forgot the mirror at ${path}`);
    expect(existsSync(path)).toBe(false);
    expect((await cli(['mirror', 'status'], env)).stdout).toContain('No mirror at');
  });

  it('says there is no file on the embedded sandbox or with --mirror memory', async () => {
    const [none, memory] = await Promise.all([cli(['mirror', 'status'], {}), cli(['mirror', 'status', '--mirror', 'memory'], {})]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('on the embedded sandbox the mirror lives in memory');
    expect(memory.stdout).toContain('there is no file');
  });
});

describe('invoicing-mcp mirror, on Postgres', { concurrent: true }, () => {
  /** Waits (reading the database in-process, not through the command) until a server holds the lease, read in full, or none does. */
  async function untilHeld(url: string, held: boolean, ms: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const report = await inspectPostgresMirror(url);
      if ((report.holder !== null && report.marks.size === 5) === held || Date.now() - started > ms) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('status names the database without its password; a crashed holder lets go at once; forget drops the mirror', async () => {
    const url = await postgresDatabase('mirror_command');
    const password = new URL(url).password;
    const { key, env } = await smallBooks({ SVC_POLL_SECONDS: '240', INVOICING_MCP_MIRROR: url });
    expect((await cli(['mirror', 'status'], env)).stdout).toContain('No mirror in Postgres postgres://postgres:***@127.0.0.1:');
    const first = spawnStdioServer([], env);
    await untilHeld(url, true, 20_000);
    const status = (await cli(['mirror', 'status'], env)).stdout;
    expect(status).toContain('A server is syncing it now');
    expect(first.stderr()).toContain('Mirror: Postgres postgres://postgres:***@');
    const refused = await cli(['mirror', 'forget', '--mirror', url], {});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a server is syncing the mirror in postgres://postgres:***@');
    await first.crash();
    const session = await signIn(sb.baseUrl, key);
    expect(status).toMatch(new RegExp(`invoices\\s+${(await listAll(session, '/api/v1/invoices')).length}\\s+read as of`));
    expect(status).toContain(`key ${key.key_id}`);
    // The lock ended with the crashed process's connection: nothing to wait out, the next process takes it at
    // its first try (the contract tests' lease test shows the taking).
    expect(await untilHeld(url, false, 10_000)).toBeLessThan(10_000);
    expect((await cli(['mirror', 'status'], env)).stdout).toContain('No server is syncing it now.');
    const forgot = await cli(['mirror', 'forget', '--mirror', url], {});
    expect(forgot.stdout).toContain('Forgot the mirror in Postgres postgres://postgres:***@');
    expect((await inspectPostgresMirror(url)).exists).toBe(false);
    for (const said of [status, first.stderr(), refused.stdout, refused.stderr, forgot.stdout, forgot.stderr])
      expect(said).not.toContain(password);
  });
});
