import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = new URL('../../scripts/check-stdout.mjs', import.meta.url).pathname;

describe('the stdout check', () => {
  it('passes on the project tree', () => {
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect(run.stderr).toContain('no stdout writes');
    expect(run.status).toBe(0);
  });

  it('fails on a console.log outside the CLI entry, naming the line', () => {
    const root = mkdtempSync(join(tmpdir(), 'stdout-check-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'cli.ts'), 'process.stdout.write("ok");\n');
    writeFileSync(join(root, 'src', 'tool.ts'), 'const a = 1;\nconsole.log(a);\n');
    const run = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('src/tool.ts:2');
    expect(run.stderr).not.toContain('src/cli.ts:');
  });
});
