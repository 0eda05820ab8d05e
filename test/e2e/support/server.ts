// Spawns the built server as it ships (dist/bin/invoicing-mcp.mjs): over HTTP as a child whose banner
// gives the URL; over stdio
// the SDK clients spawn it themselves from `stdioCommand`.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestSandbox } from '../../support/sandbox.js';

export const CLI = new URL('../../../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;

export type Env = Record<string, string>;

/** The cache directory of this test file's servers: their mirror files never land in the developer's own. */
const CACHE_HOME = mkdtempSync(join(tmpdir(), 'invoicing-mcp-cache-'));

/** The environment of a server child: the keys given (or none, for the embedded sandbox), nothing else of ours. */
export function serverEnv(extra: Env = {}): Env {
  const env: Env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_CACHE_HOME: CACHE_HOME };
  // No background sync unless the test asks for one: most servers here live a second or two and read no
  // answer, and a first sync of the sample books (472 invoices, each one's lines a call of its own) was most
  // of their CPU and of their sandbox's.
  env.SVC_POLL_SECONDS = '0';
  return { ...env, ...extra };
}

/** The SVC_* variables for a key of a test sandbox. */
export function keyEnv(sandbox: TestSandbox, key: { key_id: string; secret: string }): Env {
  return { SVC_BASE_URL: sandbox.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret };
}

export interface StdioCommand {
  command: string;
  args: string[];
  env: Env;
}

export const stdioCommand = (args: string[] = [], env: Env = {}): StdioCommand => ({
  command: process.execPath,
  args: [CLI, ...args],
  env: serverEnv(env),
});

export interface HttpServer {
  url: string;
  stderr: () => string;
  close(): Promise<void>;
  /** The server's process id. */
  pid: number;
  /** Sends SIGTERM and resolves with the exit code. */
  terminate(): Promise<number | null>;
  /** Ends the process with SIGKILL, as a crash would: nothing of ours runs on the way out. */
  crash(): Promise<void>;
}

/** Ends a server child with SIGTERM, as a supervisor stops it, and waits for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** The built bundle's server as a function (dist/bin/serve-in-process.mjs), loaded once per worker. */
export const SERVE_IN_PROCESS = new URL('../../../dist/bin/serve-in-process.mjs', import.meta.url).href;

/** A server of the built bundle over HTTP: its URL, what it wrote to stderr (banner and logs), and a stop. */
export interface HttpServerHere {
  url: string;
  stderr: () => string;
  close(): Promise<void>;
}

/**
 * `invoicing-mcp --http --port 0` from the built bundle, started inside the test worker: the same flags,
 * environment (given, never the worker's own) and server, without a Node start for each server. A test
 * that signals, kills or restarts its server, or reads its process, spawns one: `spawnHttpProcess`.
 */
export async function spawnHttpServer(args: string[] = [], env: Env = {}): Promise<HttpServerHere> {
  const { serveInProcess } = (await import(SERVE_IN_PROCESS)) as typeof import('../../../src/cli/serve-in-process.js');
  let stderr = '';
  const write = (text: string) => void (stderr += text.endsWith('\n') ? text : `${text}\n`);
  const serving = await serveInProcess(['--http', '--port', '0', '--host', '127.0.0.1', ...args], serverEnv(env), {
    stderr: write,
    logDestination: { write },
  });
  return { url: serving.url as string, stderr: () => stderr, close: () => serving.stop() };
}

/** Starts the built CLI with `--http --port 0` as a process and resolves with the URL its banner prints. */
export async function spawnHttpProcess(args: string[] = [], env: Env = {}): Promise<HttpServer> {
  const child: ChildProcess = spawn(process.execPath, [CLI, '--http', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: serverEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const m = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url,
    pid: child.pid as number,
    stderr: () => stderr,
    close: () => stopChild(child),
    terminate: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    crash: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A port nobody listens on right now (for a webhook listener whose URL must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
