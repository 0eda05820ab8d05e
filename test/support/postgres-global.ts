// One Postgres for the whole test run (vitest's globalSetup), from the registry's binaries: no docker (see
// postgres-server.ts). Its URL is provided to the test files (inject('postgres')); when it cannot start, the
// reason is provided instead, and every Postgres test fails with it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server.js';

export type PostgresForTests = { url: string } | { error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresForTests;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const folder = mkdtempSync(join(tmpdir(), 'invoicing-mcp-pg-'));
  const password = randomBytes(12).toString('hex');
  const port = await freePort();
  const log: string[] = [];
  let stop = async (): Promise<void> => undefined;
  try {
    const server = await startPostgres(folder, port, password, log);
    stop = () => server.stop();
    project.provide('postgres', { url: server.url });
    if (process.env.POSTGRES_TIMING)
      process.stderr.write(`Postgres for the tests started in ${Math.round(performance.now() - started)} ms\n`);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    project.provide('postgres', { error: `${reason}; its log: ${log.join('').slice(-2000)}` });
  }
  return async () => {
    await stop().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  };
}
