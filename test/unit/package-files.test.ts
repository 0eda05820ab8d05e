// What `npm pack` puts in the package must run: every relative import of a packed module is packed too
// (the tools and prompts live beside dist/src), with the tool manifest and server.json.
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
    for (const f of ['dist/src/cli.js', 'dist/tools/manifest.json', 'dist/tools/index.js', 'dist/prompts/index.js', 'server.json', 'README.md']) {
      expect(files.has(f), f).toBe(true);
    }
  });

  it('holds every module a packed module imports', () => {
    const modules = [...files].filter((f) => f.endsWith('.js'));
    expect(modules.length).toBeGreaterThan(20);
    const missing = modules.flatMap((file) =>
      relativeImports(readFileSync(`${root}${file}`, 'utf8'))
        .map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)))
        .filter((target) => !files.has(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });
});
