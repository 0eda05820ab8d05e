// What `npm pack` puts in the package is what runs: the bundle (the bin and its chunks), the sandbox
// library and its types, LICENSE, README and server.json, and no tsc output or source maps; every
// relative import of a packed module is packed too; what the bundles leave to node_modules is exactly the
// package's dependencies.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  exports: Record<string, { types: string; import: string } | string>;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
  scripts: Record<string, string>;
};

function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Set((JSON.parse(out)[0].files as Array<{ path: string }>).map((f) => f.path));
}

// As esbuild writes them: static imports at the start of a line, dynamic import("..."), and require calls
// of bundled CommonJS (__require) and of createRequire's function (which esbuild names require2); not the
// same words inside strings of generated code.
const IMPORT_RE = /^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"|\bimport\("([^"]+)"\)|\b(?:__require|require\d)\("([^"]+)"\)/gm;
const importsOf = (source: string): string[] => [...source.matchAll(IMPORT_RE)].map((m) => (m[1] ?? m[2] ?? m[3]) as string);
const relativeImports = (source: string): string[] => importsOf(source).filter((spec) => spec.startsWith('./') || spec.startsWith('../'));

describe('the npm package', () => {
  const files = packedFiles();

  it('holds the bundle, the sandbox library with its types, LICENSE, README and server.json', () => {
    for (const f of [
      'dist/bin/invoicing-mcp.mjs',
      'dist/lib/sandbox.mjs',
      'dist/types/sandbox/index.d.ts',
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
