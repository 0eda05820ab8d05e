// `npm run bundle`: packs one MCP Bundle per operating system (invoicing-mcp-darwin.mcpb, -win32, -linux) for
// one-click install in desktop clients. A bundle's manifest may name operating systems but not processors, so
// each holds libsql's native binary for every processor its system's desktop clients run on (from the
// registry, at the version libsql asks for) and names only its own system. The production dependencies come
// from the lock file without any native part, then each bundle gets its own.
// `node scripts/pack-mcpb.mjs linux --out DIR` packs only the systems named, into DIR.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** libsql's native packages by operating system (Windows on ARM runs the x64 build of Node it ships with). */
export const NATIVE = {
  darwin: ['darwin-arm64', 'darwin-x64'],
  win32: ['win32-x64-msvc'],
  linux: ['linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu', 'linux-arm64-musl'],
};

const root = new URL('../', import.meta.url);
const at = (path) => new URL(path, root).pathname;
const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
const systems = positionals.length > 0 ? positionals : Object.keys(NATIVE);
for (const system of systems)
  if (!(system in NATIVE)) throw new Error(`no bundle for "${system}": one of ${Object.keys(NATIVE).join(', ')}`);
const out = values.out ?? at('.');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const mcpb = at(`node_modules/.bin/${process.platform === 'win32' ? 'mcpb.cmd' : 'mcpb'}`);
// Whatever runs, its stdout goes to stderr: a bundle build in a test must not write to the test's stdout.
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ['ignore', 2, 2] });

const stages = mkdtempSync(join(tmpdir(), 'invoicing-mcp-bundle-'));
try {
  const common = join(stages, 'common');
  mkdirSync(common);
  cpSync(at('dist/bin'), join(common, 'dist/bin'), { recursive: true });
  cpSync(at('dist/views'), join(common, 'dist/views'), { recursive: true });
  copyFileSync(at('LICENSE'), join(common, 'LICENSE'));
  copyFileSync(at('package-lock.json'), join(common, 'package-lock.json'));
  // The package without its scripts, so installing it runs no build.
  const { scripts: _scripts, ...pkg } = JSON.parse(readFileSync(at('package.json'), 'utf8'));
  writeFileSync(join(common, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const install = ['install', '--omit=dev', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'];
  run(npm, [...install, '--loglevel=error'], common);
  rmSync(join(common, 'package-lock.json'));
  const libsqlVersion = JSON.parse(readFileSync(join(common, 'node_modules/libsql/package.json'), 'utf8')).version;
  const manifest = JSON.parse(readFileSync(at('dist/mcpb/manifest.json'), 'utf8'));

  for (const system of systems) {
    const stage = join(stages, system);
    cpSync(common, stage, { recursive: true });
    for (const name of NATIVE[system]) {
      const tarball = execFileSync(npm, ['pack', `@libsql/${name}@${libsqlVersion}`, '--pack-destination', stages, '--silent'], {
        cwd: stages,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 2],
      }).trim();
      const into = join(stage, 'node_modules/@libsql', name);
      mkdirSync(into, { recursive: true });
      run('tar', ['-xzf', join(stages, tarball), '-C', into, '--strip-components=1'], stages);
    }
    const own = { ...manifest, compatibility: { ...manifest.compatibility, platforms: [system] } };
    writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(own, null, 2)}\n`);
    run(mcpb, ['validate', 'manifest.json'], stage);
    run(mcpb, ['pack', stage, join(out, `invoicing-mcp-${system}.mcpb`)], stage);
  }
} finally {
  rmSync(stages, { recursive: true, force: true });
}
