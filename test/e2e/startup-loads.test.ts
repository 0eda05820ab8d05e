// The server with real keys answers `initialize` and `tools/list` before it loads anything native (libsql),
// the API client (undici) or the logger (pino), and before the mirror's file exists: a probe preloaded into
// the child records what was loaded at the moment each answer was written. The first tool that reads the
// mirror loads them; with no such call, the mirror opens by itself once the server is quiet.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { CLI, keyEnv, serverEnv } from './support/server.js';

const PROBE = new URL('./support/load-probe.mjs', import.meta.url).pathname;

interface Snapshot {
  id: number;
  native: string[];
  packages: string[];
  mirrorDir: boolean;
}

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 6000 });
});
afterAll(async () => {
  await sb?.close();
});

/**
 * A server child on a live key with the probe preloaded, spoken to in raw JSON-RPC lines. The key is the
 * second business's: what is loaded does not depend on the books, and its first read is a few dozen calls.
 */
async function probedServer(extraEnv: Record<string, string> = {}) {
  const cache = mkdtempSync(join(tmpdir(), 'startup-loads-'));
  const key = await sb.makeKey('live', [...ALL_SCOPES], 2);
  const child: ChildProcess = spawn(process.execPath, ['--import', PROBE, CLI], {
    env: serverEnv({ ...keyEnv(sb, key), XDG_CACHE_HOME: cache, ...extraEnv }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const answers = new Map<number, unknown>();
  const snapshots = new Map<number, Snapshot>();
  const waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const m of chunk.matchAll(/^load-probe (.*)$/gm)) {
      const snapshot = JSON.parse(m[1] as string) as Snapshot;
      snapshots.set(snapshot.id, snapshot);
    }
    wake();
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const lines = stdout.split('\n');
    stdout = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === 'number') answers.set(message.id, message);
    }
    wake();
  });
  const until = async (ready: () => boolean): Promise<void> => {
    while (!ready()) {
      if (child.exitCode !== null) throw new Error(`the server exited:\n${stderr}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    cache,
    stderr: () => stderr,
    /** Resolves once the banner has named the mirror (its last line). */
    banner: () => until(() => /^Mirror: .*$/m.test(stderr)),
    send: (message: object): void => void child.stdin!.write(`${JSON.stringify(message)}\n`),
    /** The answer to request `id` and the probe's snapshot taken as it was written. */
    answer: async (id: number): Promise<{ message: any; loaded: Snapshot }> => {
      await until(() => answers.has(id) && snapshots.has(id));
      return { message: answers.get(id), loaded: snapshots.get(id) as Snapshot };
    },
    close: async (): Promise<void> => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin!.end();
      await exited;
    },
  };
}

type ProbedServer = Awaited<ReturnType<typeof probedServer>>;

/**
 * initialize and tools/list, asked only once the banner is complete: a server that opened its mirror
 * before it could say where it is (or at any time before it answers) is caught, not raced.
 */
async function openSession(server: ProbedServer): Promise<Snapshot[]> {
  await server.banner();
  server.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  const init = await server.answer(1);
  expect(init.message.result.protocolVersion).toBe('2025-11-25');
  server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const list = await server.answer(2);
  expect(list.message.result.tools.map((t: { name: string }) => t.name)).toContain('report_owed');
  return [init.loaded, list.loaded];
}

const NOTHING_LOADED = { native: [], packages: [], mirrorDir: false };

describe('start-up with real keys', () => {
  it('answers initialize and tools/list with nothing native loaded; the first tool on the mirror loads it', async () => {
    const server = await probedServer();
    try {
      const [init, list] = await openSession(server);
      expect(init).toEqual({ id: 1, ...NOTHING_LOADED });
      expect(list).toEqual({ id: 2, ...NOTHING_LOADED });
      // The banner said where the mirror lives before it was opened.
      expect(server.stderr()).toMatch(
        /Mirror: \S+mirror-[0-9a-f]+\.db \(opened when a tool first reads it; in memory instead if the file cannot be used\)/,
      );

      server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'report_owed', arguments: {} } });
      const call = await server.answer(3);
      expect(call.message.result.isError, JSON.stringify(call.message.result.content)).toBeFalsy();
      expect(call.loaded.native.some((path) => /libsql/.test(path))).toBe(true);
      expect(call.loaded.packages).toEqual(expect.arrayContaining(['libsql', 'undici']));
      expect(call.loaded.mirrorDir).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('opens the mirror by itself once the server is quiet after its first answers, when background rounds feed it', async () => {
    const server = await probedServer({ SVC_POLL_SECONDS: '3600' });
    try {
      const [, list] = await openSession(server);
      expect(list.mirrorDir).toBe(false);
      const dir = join(server.cache, 'invoicing-mcp');
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !(existsSync(dir) && readdirSync(dir).some((f) => /^mirror-[0-9a-f]+\.db$/.test(f)))) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readdirSync(dir).filter((f) => /^mirror-[0-9a-f]+\.db$/.test(f))).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
