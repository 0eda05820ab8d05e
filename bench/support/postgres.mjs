// A Postgres for the benchmarks: the tests' own runner (test/support/postgres-server.ts, the registry's
// binaries, no docker), compiled on the fly with esbuild since the benchmarks run plain JavaScript. The
// compiled file sits under node_modules/.cache so that it finds the binaries' package as the tests do.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { freePort } from './free-port.mjs';

const root = new URL('../../', import.meta.url).pathname;

/** Starts Postgres in a folder of its own; `database(name)` makes a database and gives its URL. */
export async function startBenchPostgres() {
  const cache = join(root, 'node_modules', '.cache', 'invoicing-mcp-bench');
  mkdirSync(cache, { recursive: true });
  const runner = join(cache, 'postgres-server.mjs');
  await build({
    entryPoints: [join(root, 'test/support/postgres-server.ts')],
    outfile: runner,
    format: 'esm',
    platform: 'node',
    logLevel: 'warning',
  });
  const { startPostgres } = await import(runner);
  const folder = mkdtempSync(join(tmpdir(), 'invoicing-mcp-bench-pg-'));
  const log = [];
  let server;
  try {
    server = await startPostgres(folder, await freePort(), randomBytes(12).toString('hex'), log);
  } catch (err) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`Postgres did not start: ${err.message}\n${log.join('').slice(-2000)}`);
  }
  return {
    async database(name) {
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async stop() {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
