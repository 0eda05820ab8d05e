// A comment that names a file names one that exists (from its folder, a folder above it, or anywhere for a bare
// name): a file moved or renamed leaves no comment pointing at its old place.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingPathsInComments } from '../support/source-scan.js';

const root = new URL('../..', import.meta.url).pathname;

describe('the paths comments name', () => {
  it('exist, in src/, tools/, prompts/, test/ and scripts/', () => {
    expect(missingPathsInComments(root, ['src', 'tools', 'prompts', 'test', 'scripts'])).toEqual([]);
  });

  it('are found missing when they are, and not in a string', () => {
    const at = mkdtempSync(join(tmpdir(), 'comment-paths-'));
    try {
      mkdirSync(join(at, 'src/books'), { recursive: true });
      writeFileSync(join(at, 'src/books/store.ts'), '');
      writeFileSync(
        join(at, 'src/books/a.ts'),
        [
          '// Reads books/store.ts and ./store.js, as commands/gone.ts did.',
          "const s = '// not a comment: nowhere/else.ts';",
          '/** Written by ../sqlite/schema.ts and lost.ts */',
          'export {};',
        ].join('\n'),
      );
      expect(missingPathsInComments(at, ['src'])).toEqual([
        'src/books/a.ts:1 names commands/gone.ts',
        'src/books/a.ts:3 names ../sqlite/schema.ts',
        'src/books/a.ts:3 names lost.ts',
      ]);
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});
