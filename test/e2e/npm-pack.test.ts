// The package as a user meets it: `npm pack`, installed into an empty directory (dependencies from npm's
// cache when it can), then `npx invoicing-mcp --version`, `check` and a stdio session through the SDK
// client, and the sandbox imported as a library through the package's export. The install holds only
// what the bundle needs. What the pack holds is what runs: the bundle (the bin and its chunks), the
// sandbox library and its types, LICENSE, README and server.json, and no tsc output or source maps;
// every relative import of a packed module is packed too; what the bundles leave to node_modules is
// exactly the package's dependencies.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/registry.js';
import { connectClient } from './support/clients.js';
import { serverEnv } from './support/server.js';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  exports: Record<string, { types: string; import: string } | string>;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
  scripts: Record<string, string>;
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
// Asynchronous: npm pack and install take seconds, and a synchronous call would hold up the worker's other files.
const run = promisify(execFile);
let tmp: string;
let app: string;
let installLog: string;
/** The paths `npm pack` put in the package. */
let files: Set<string>;

const inApp = async (command: string, args: string[]): Promise<string> =>
  (await run(command, args, { cwd: app, encoding: 'utf8', env: serverEnv({ npm_config_update_notifier: 'false' }) })).stdout;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'invoicing-mcp-pack-'));
  const packed = JSON.parse(
    (await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: root, encoding: 'utf8' })).stdout,
  );
  files = new Set((packed[0].files as Array<{ path: string }>).map((f) => f.path));
  app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pack-test', private: true, type: 'module' }));
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  const install = await run(npm, ['install', join(tmp, packed[0].filename), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: app,
    encoding: 'utf8',
    env,
  }).catch((err: { stdout?: string; stderr?: string }) => {
    throw new Error(`npm install failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  });
  installLog = `${install.stdout}${install.stderr}`;
}, 180_000);

// As esbuild writes them: static imports at the start of a line, dynamic import("..."), and require calls
// of bundled CommonJS (__require) and of createRequire's function (which esbuild names require2); not the
// same words inside strings of generated code.
const IMPORT_RE = /^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"|\bimport\("([^"]+)"\)|\b(?:__require|require\d)\("([^"]+)"\)/gm;
const importsOf = (source: string): string[] => [...source.matchAll(IMPORT_RE)].map((m) => (m[1] ?? m[2] ?? m[3]) as string);
const relativeImports = (source: string): string[] => importsOf(source).filter((spec) => spec.startsWith('./') || spec.startsWith('../'));

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

  it('`npx invoicing-mcp --version` prints the version', async () => {
    expect((await inApp(npx, ['--no-install', 'invoicing-mcp', '--version'])).trim()).toBe(pkg.version);
  });

  // Through the bin link npx ran above (npm's own start costs as much as the command): the same script.
  it('`invoicing-mcp check` (the installed bin) signs in to the built-in sandbox', async () => {
    const out = await inApp(join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'invoicing-mcp.cmd' : 'invoicing-mcp'), [
      'check',
    ]);
    expect(out).toContain('(built-in sandbox)');
    expect(out).toMatch(/^mode\s+test$/m);
  }, 30_000);

  it('serves a stdio session with every tool', async () => {
    const bin = join(app, 'node_modules', 'invoicing-mcp', 'dist', 'bin', 'invoicing-mcp.mjs');
    // The client asks server/discover of the session's own process: one server on its embedded sandbox, not two.
    const mcp = await connectClient('v2', { stdio: { command: process.execPath, args: [bin], env: serverEnv() } }, { probe: 'in-place' });
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

  it('offers the sandbox as a library: import "invoicing-mcp/sandbox"', async () => {
    writeFileSync(
      join(app, 'use-sandbox.mjs'),
      "import { startSandbox } from 'invoicing-mcp/sandbox';\nconst sb = await startSandbox({ port: 0 });\nconst r = await fetch(`${sb.baseUrl}/api/ping`);\nconsole.log(JSON.stringify({ base: sb.baseUrl, status: r.status, test: sb.keys.test.key_id.slice(0, 10) }));\nawait sb.close();\n",
    );
    const out = JSON.parse(await inApp(process.execPath, ['use-sandbox.mjs']));
    expect(out.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out.test).toBe('svck_test_');
    expect(out.status).toBeGreaterThanOrEqual(200);
  }, 30_000);
});

describe('what `npm pack` puts in the package', () => {
  it('holds the bundle, the sandbox library with its types, the views, LICENSE, README and server.json', () => {
    for (const f of [
      'dist/bin/invoicing-mcp.mjs',
      'dist/lib/sandbox.mjs',
      'dist/types/sandbox/index.d.ts',
      'dist/views/draft-review.html',
      'dist/views/report-chart.html',
      'LICENSE',
      'README.md',
      'server.json',
      'package.json',
    ]) {
      expect(files.has(f), f).toBe(true);
    }
  });

  it('holds no tsc output, source maps or sources', () => {
    expect(
      [...files].filter(
        (f) =>
          f.startsWith('dist/src/') ||
          f.startsWith('dist/tools/') ||
          f.startsWith('dist/build/') ||
          f.endsWith('.map') ||
          (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
  });

  it('holds every module a packed module imports', () => {
    const modules = [...files].filter((f) => f.endsWith('.mjs'));
    expect(modules.length).toBeGreaterThan(5);
    const missing = modules.flatMap((file) =>
      relativeImports(readFileSync(`${root}${file}`, 'utf8'))
        .map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)))
        .filter((target) => !files.has(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('depends on exactly the packages the bundles import from node_modules', () => {
    expect(pkg.bin['invoicing-mcp']).toBe('dist/bin/invoicing-mcp.mjs');
    const bundled = [...files].filter((f) => f.endsWith('.mjs'));
    const packages = new Set(
      bundled.flatMap((file) =>
        importsOf(readFileSync(`${root}${file}`, 'utf8'))
          .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:'))
          .map((spec) =>
            spec
              .split('/')
              .slice(0, spec.startsWith('@') ? 2 : 1)
              .join('/'),
          ),
      ),
    );
    expect([...packages].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('exports the sandbox with types, and says where it lives', () => {
    expect(pkg.exports['./sandbox']).toEqual({ types: './dist/types/sandbox/index.d.ts', import: './dist/lib/sandbox.mjs' });
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\//);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs.url).toMatch(/^https:\/\//);
  });

  it('has no install script for its users to approve', () => {
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[script], script).toBeUndefined();
  });
});
