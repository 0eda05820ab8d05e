// docs/folders.md is the code's folder map: `scripts/folder-map.mjs --check` passes on it, and fails, naming the
// command that fixes it, on a copy that misses a file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'folder-map-'));
const check = (doc?: string) =>
  spawnSync(process.execPath, [`${root}scripts/folder-map.mjs`, '--check', ...(doc ? ['--doc', doc] : [])], { encoding: 'utf8' });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/folders.md', () => {
  it('is what npm run docs:folders makes from the code', () => {
    const run = check();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('names every source folder and file, each with its job', () => {
    const map = readFileSync(`${root}docs/folders.md`, 'utf8');
    for (const file of [
      'src/transports/stdio-transport.ts',
      'src/answers/sales/report-sales.ts',
      'src/store/postgres/db.ts',
      'src/mcp/registry.ts',
    ]) {
      const folder = file.slice(0, file.lastIndexOf('/') + 1);
      const section = map.slice(map.indexOf(`## \`${folder}\``));
      expect(section).toMatch(new RegExp(`^\\| \`${file.slice(folder.length)}\` \\| \\S`, 'm'));
    }
  });

  it('fails the check when stale, and says which command fixes it', () => {
    const stale = join(dir, 'folders.md');
    writeFileSync(stale, readFileSync(`${root}docs/folders.md`, 'utf8').replace(/^\| `db\.ts` .*\n/m, ''));
    const run = check(stale);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run docs:folders');
  });
});
