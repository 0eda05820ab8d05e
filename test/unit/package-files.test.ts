// What `npm pack` puts in the package must run: every relative import of a packed module is packed too
// (the tools and prompts live beside dist/src), with the tool manifest and server.json; the bin is the
// bundle, and what the bundle leaves to node_modules is a dependency of the package.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return new Set((JSON.parse(out)[0].files as Array<{ path: string }>).map((f) => f.path));
}

const relativeImports = (source: string): string[] =>
  [...source.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1] as string);

describe('the npm package', () => {
  const files = packedFiles();

  it('holds the entry, the tool manifest, server.json and the README', () => {
    for (const f of ['dist/bin/invoicing-mcp.mjs', 'dist/src/cli.js', 'dist/tools/manifest.json', 'dist/tools/index.js', 'dist/prompts/index.js', 'server.json', 'README.md']) {
      expect(files.has(f), f).toBe(true);
    }
  });

  it('holds every module a packed module imports', () => {
    const modules = [...files].filter((f) => f.endsWith('.js') || f.endsWith('.mjs'));
    expect(modules.length).toBeGreaterThan(20);
    const missing = modules.flatMap((file) =>
      relativeImports(readFileSync(`${root}${file}`, 'utf8'))
        .map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)))
        .filter((target) => !files.has(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('runs the bundle as its bin, which imports from node_modules only the package dependencies', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { bin: Record<string, string>; dependencies: Record<string, string> };
    expect(pkg.bin['invoicing-mcp']).toBe('dist/bin/invoicing-mcp.mjs');
    const bundled = [...files].filter((f) => f.startsWith('dist/bin/') && f.endsWith('.mjs'));
    const packages = new Set(
      bundled.flatMap((file) =>
        [...readFileSync(`${root}${file}`, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'".][^'"]*)['"]/g)]
          .map((m) => m[1] as string)
          .filter((spec) => !spec.startsWith('node:'))
          .map((spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/')),
      ),
    );
    expect([...packages].sort()).toEqual(['@libsql/client', 'fastify', 'pino', 'undici']);
    for (const name of packages) expect(pkg.dependencies[name], name).toBeDefined();
  });
});
