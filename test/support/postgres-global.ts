// One Postgres for the whole test run (vitest's globalSetup), from the registry's binaries: no docker (see
// postgres-server.ts). It starts while the first test files run (making its data folder takes seconds that
// no test needs to wait for): the test files get its URL and a status file at once (inject('postgres')),
// and a Postgres test waits for the status file, which says it is ready or why it could not start; then
// every Postgres test fails with that reason.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server.js';
import { freePort, type RunServiceStatus, tellStatus } from './run-service.js';

export interface PostgresForTests {
  url: string;
  /** Written once Postgres is up (`{"ready":true}`) or has failed (`{"error":"..."}`). */
  statusFile: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresForTests;
  }
}

const TMPFS = 0x01021994;
const ROOM_BYTES = 2 * 1024 ** 3;

/**
 * Where the data folder goes: a memory file system (Linux's /dev/shm) when the machine has one with room,
 * otherwise the temporary folder. A run makes and drops thousands of Postgres files (a database is some 300,
 * a mirror's schema dozens); on a disk each CREATE DATABASE took about 230 ms, in memory about 20 ms.
 */
function dataRoot(): string {
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.type === TMPFS && fs.bavail * fs.bsize >= ROOM_BYTES) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows): the temporary folder.
  }
  return tmpdir();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const folder = mkdtempSync(join(dataRoot(), 'invoicing-mcp-pg-'));
  const password = randomBytes(12).toString('hex');
  const port = await freePort();
  const statusFile = join(folder, 'status.json');
  const log: string[] = [];
  const tell = (status: RunServiceStatus): void => tellStatus(statusFile, status);
  project.provide('postgres', { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, statusFile });
  const server = startPostgres(folder, port, password, log).then(
    (s) => {
      tell({ ready: true });
      if (process.env.POSTGRES_TIMING)
        process.stderr.write(`Postgres for the tests started in ${Math.round(performance.now() - started)} ms\n`);
      return s;
    },
    (err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      tell({ error: `${reason}; its log: ${log.join('').slice(-2000)}` });
      return null;
    },
  );
  return async () => {
    await (await server)?.stop().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  };
}
