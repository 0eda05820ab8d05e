// The package as a user meets it: `npm pack`, installed into an empty directory (dependencies from npm's
// cache when it can), then `npx invoicing-mcp --version`, `check` and a stdio session through the SDK
// client, and the sandbox imported as a library through the package's export. The install holds only
// what the bundle needs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../tools/index.js';
import { connectClient } from './support/clients.js';
import { serverEnv } from './support/server.js';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
let tmp: string;
let app: string;
let installLog: string;

const inApp = (command: string, args: string[]): string =>
  execFileSync(command, args, {
    cwd: app,
    encoding: 'utf8',
    env: serverEnv({ npm_config_update_notifier: 'false' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'invoicing-mcp-pack-'));
  const packed = JSON.parse(
    execFileSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pack-test', private: true, type: 'module' }));
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  const install = spawnSync(npm, ['install', join(tmp, packed[0].filename), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: app,
    encoding: 'utf8',
    env,
  });
  installLog = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) throw new Error(`npm install failed:\n${installLog}`);
}, 180_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed package, installed into an empty directory', () => {
  it('installs the bundle, the sandbox library and its types, and no tsc output', () => {
    const dir = join(app, 'node_modules', 'invoicing-mcp');
    for (const f of ['dist/bin/invoicing-mcp.mjs', 'dist/lib/sandbox.mjs', 'dist/types/sandbox/index.d.ts', 'LICENSE', 'README.md'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    for (const f of ['dist/src', 'dist/tools', 'dist/prompts']) expect(existsSync(join(dir, f)), f).toBe(false);
  });

  it('installs quietly on this Node: no engine warning, no install script to approve', () => {
    expect(installLog).not.toContain('EBADENGINE');
    expect(installLog).not.toMatch(/install-scripts|install script/i);
    // fastify is bundled, so its test helper and the cookie package (Node >= 22) are not installed.
    expect(existsSync(join(app, 'node_modules', 'light-my-request'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'cookie'))).toBe(false);
  });

  it('installs as dependencies only what the bundle imports', () => {
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['libsql', 'pg', 'pino', 'undici']);
    for (const bundled of ['zod', 'lru-cache', '@modelcontextprotocol/server', 'fastify']) {
      expect(existsSync(join(app, 'node_modules', bundled)), bundled).toBe(false);
    }
  });

  it('`npx invoicing-mcp --version` prints the version', () => {
    expect(inApp(npx, ['--no-install', 'invoicing-mcp', '--version']).trim()).toBe(pkg.version);
  });

  it('`npx invoicing-mcp check` signs in to the built-in sandbox', () => {
    const out = inApp(npx, ['--no-install', 'invoicing-mcp', 'check']);
    expect(out).toContain('(built-in sandbox)');
    expect(out).toMatch(/^mode\s+test$/m);
  }, 30_000);

  it('serves a stdio session with every tool', async () => {
    const bin = join(app, 'node_modules', 'invoicing-mcp', 'dist', 'bin', 'invoicing-mcp.mjs');
    const mcp = await connectClient('v2', { stdio: { command: process.execPath, args: [bin], env: serverEnv() } });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
      const result = await mcp.client.callTool({ name: 'get_invoice', arguments: { id: 1 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: 1 });
    } finally {
      await mcp.close();
    }
  }, 30_000);

  it('offers the sandbox as a library: import "invoicing-mcp/sandbox"', () => {
    writeFileSync(
      join(app, 'use-sandbox.mjs'),
      "import { startSandbox } from 'invoicing-mcp/sandbox';\nconst sb = await startSandbox({ port: 0 });\nconst r = await fetch(`${sb.baseUrl}/api/ping`);\nconsole.log(JSON.stringify({ base: sb.baseUrl, status: r.status, test: sb.keys.test.key_id.slice(0, 10) }));\nawait sb.close();\n",
    );
    const out = JSON.parse(inApp(process.execPath, ['use-sandbox.mjs']));
    expect(out.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out.test).toBe('svck_test_');
    expect(out.status).toBeGreaterThanOrEqual(200);
  }, 30_000);
});
