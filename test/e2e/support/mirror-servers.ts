// Servers on a mirror file, watched from outside: the built server spawned over stdio with its stdin kept
// open, the test speaking for a client (one `initialize`, after which the server opens its mirror once it
// has gone quiet); and waits on what the file says, read in-process as `mirror status` reads it, so that a
// test waits for a state instead of polling the command (a process each time).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inspectPostgresMirror, type PostgresMirrorReport } from '../../../src/store/postgres/inspect.js';
import { inspectMirrorFile, type MirrorFileReport } from '../../../src/store/sqlite/inspect.js';
import type { MirrorBooksReport } from '../../../src/store/store.js';
import { CLI, type Env, serverEnv } from './server.js';

export interface StdioChild {
  pid: number;
  stderr(): string;
  /** Resolves once the server has printed its banner (its last line names the mirror): it serves. */
  serving(): Promise<void>;
  /** SIGTERM, and the exit awaited: the server lets its lease go on the way out. */
  close(): Promise<void>;
  /** SIGKILL, as a crash would: nothing of ours runs on the way out. */
  crash(): Promise<void>;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mirror-test', version: '1' } },
});

/** The built server over stdio, greeted by a client's `initialize`. */
export function spawnStdioServer(args: string[], env: Env): StdioChild {
  const child = spawn(process.execPath, [CLI, ...args], { env: serverEnv(env), stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const serving = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (/^Mirror: /m.test(stderr)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before serving:\n${stderr}`)));
  });
  serving.catch(() => undefined);
  child.stdin.on('error', () => undefined);
  child.stdin.write(`${INITIALIZE}\n`);
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  return {
    pid: child.pid as number,
    stderr: () => stderr,
    serving: () => serving,
    close: () => stop('SIGTERM'),
    crash: () => stop('SIGKILL'),
  };
}

/** The one mirror file the servers of a key made in a cache folder's `invoicing-mcp`. */
export function mirrorFileIn(folder: string): string {
  const files = existsSync(folder) ? readdirSync(folder).filter((f) => /^mirror-[0-9a-f]+\.db$/.test(f)) : [];
  if (files.length !== 1) throw new Error(`expected one mirror file in ${folder}, found ${files.join(', ') || 'none'}`);
  return join(folder, files[0] as string);
}

function oneFileIn(folder: string): string | null {
  try {
    return mirrorFileIn(folder);
  } catch {
    return null;
  }
}

/** What a Postgres mirror says once `done` holds, or null when it did not within `ms`. */
async function untilPostgresMirror(
  url: string,
  done: (report: MirrorBooksReport) => boolean,
  ms: number,
): Promise<MirrorBooksReport | null> {
  const deadline = Date.now() + ms;
  for (;;) {
    // A schema being made may not be readable yet: look again.
    const report = await inspectPostgresMirror(url).catch(() => null);
    if (report?.exists && done(report)) return report;
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * What the mirror file at `path` (or the one file in a folder, for `{ folder }`, or the Postgres database at
 * `{ postgres }`) says once `done` holds, or null when it did not within `ms`.
 */
export async function untilMirror(
  where: { path: string } | { folder: string },
  done: (report: MirrorFileReport) => boolean,
  ms: number,
): Promise<MirrorFileReport | null>;
export async function untilMirror(
  where: { postgres: string },
  done: (report: PostgresMirrorReport) => boolean,
  ms: number,
): Promise<PostgresMirrorReport | null>;
export async function untilMirror(
  where: { path: string } | { folder: string } | { postgres: string },
  done: (report: MirrorBooksReport) => boolean,
  ms: number,
): Promise<MirrorBooksReport | null>;
export async function untilMirror(
  where: { path: string } | { folder: string } | { postgres: string },
  done: (report: MirrorFileReport) => boolean,
  ms: number,
): Promise<MirrorBooksReport | null> {
  if ('postgres' in where) return untilPostgresMirror(where.postgres, done as (report: PostgresMirrorReport) => boolean, ms);
  const deadline = Date.now() + ms;
  for (;;) {
    const path = 'path' in where ? where.path : oneFileIn(where.folder);
    // A file being made may not be readable yet: look again.
    const report = path && existsSync(path) ? await inspectMirrorFile(path).catch(() => null) : null;
    if (report && done(report)) return report;
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
