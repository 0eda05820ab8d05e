// One Chromium for the whole test run (vitest's globalSetup), as Postgres is, when the run holds a browser file:
// launched beside the first test files, its endpoint and a status file handed to them at once (inject('chromium'));
// a browser test connects to it (chromium.ts) instead of launching a browser of its own, seconds of CPU a file.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { TestProject } from 'vitest/node';
import { chromiumServer } from './chromium.js';
import { freePort, tellStatus } from './run-service.js';
import { BROWSER } from './tiers.js';

export interface ChromiumForTests {
  endpoint: string;
  /** Written once the browser is up (`{"ready":true}`) or has failed (`{"error":"..."}`). */
  statusFile: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumForTests;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // A run of other files only (`npx vitest run test/unit/layers.test.ts`) starts no browser. The command line's file
  // filters are the run's `filenamePattern` (set before any globalSetup runs; vitest 4 does not type it).
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  if (!testFiles.some((file) => BROWSER.includes(relative(project.config.root, file).split('\\').join('/')))) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'invoicing-mcp-chromium-'));
  const statusFile = join(folder, 'status.json');
  const port = await freePort();
  const wsPath = `/${randomBytes(12).toString('hex')}`;
  project.provide('chromium', { endpoint: `ws://127.0.0.1:${port}${wsPath}`, statusFile });
  const server = chromiumServer(port, wsPath).then(
    (s) => {
      tellStatus(statusFile, { ready: true });
      return s;
    },
    (err: unknown) => {
      tellStatus(statusFile, { error: err instanceof Error ? err.message : String(err) });
      return null;
    },
  );
  return async () => {
    await (await server)?.close().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  };
}
