// Every wait goes through the one timers module (src/core/timers.ts), where a test can inject time: no other
// file of src/, tools/ or prompts/ calls setTimeout or setInterval (the browser page, src/views/page/, aside).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesNaming, sourceFilesUnder } from '../support/source-scan.js';

const root = new URL('../..', import.meta.url).pathname;
const TIMERS_MODULE = 'src/core/timers.ts';
const GLOBALS = new Set(['setTimeout', 'setInterval']);

const callers = (files: readonly string[], read: (file: string) => string): string[] =>
  files.flatMap((file) => linesNaming(file, read(file), GLOBALS).map((line) => `${file}:${line}`));

describe('the one timers module', () => {
  it('is the only file that calls setTimeout or setInterval', () => {
    const files = sourceFilesUnder(root, ['src', 'tools', 'prompts']).filter(
      (file) => file !== TIMERS_MODULE && !file.startsWith('src/views/page/'),
    );
    expect(callers(files, (file) => readFileSync(join(root, file), 'utf8'))).toEqual([]);
  });

  it('would see a call, a reference through globalThis and an import from node:timers, not a word in a comment', () => {
    const planted: Record<string, string> = {
      'a.ts': 'const t = setTimeout(() => {}, 5);',
      'b.ts': 'const every = globalThis.setInterval;',
      'c.ts': "import { setTimeout } from 'node:timers/promises';\nawait setTimeout(5);",
      'd.ts': "// setTimeout is not called here\nconst timers = { setTimeout: 1 };\nconst s = 'setInterval';",
    };
    expect(callers(Object.keys(planted), (file) => planted[file] ?? '')).toEqual(['a.ts:1', 'b.ts:1', 'c.ts:1', 'c.ts:2']);
  });
});
