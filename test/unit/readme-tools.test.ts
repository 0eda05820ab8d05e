// The README's tool table is the registry's: `scripts/tool-table.mjs --check` passes on the README and fails,
// naming the command that fixes it, on a copy whose table went stale.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/registry.js';

const root = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(`${root}README.md`, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'readme-tools-'));
const check = (file?: string) =>
  spawnSync(process.execPath, [`${root}scripts/tool-table.mjs`, '--check', ...(file ? ['--readme', file] : [])], { encoding: 'utf8' });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's tool table", () => {
  it('is what npm run docs:tools makes from the registry', () => {
    const run = check();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('has one row a tool, in the order of the registry', () => {
    const table = readme.slice(readme.indexOf('<!-- tools:start -->'), readme.indexOf('<!-- tools:end -->'));
    const rows = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(TOOLS.map((t) => t.name));
  });

  it('fails the check when stale, and says which command fixes it', () => {
    const stale = join(dir, 'README.md');
    writeFileSync(stale, readme.replace(/^\| `get_quote` .*\n/m, ''));
    const run = check(stale);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run docs:tools');
  });
});
