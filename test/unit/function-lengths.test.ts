// The house keeps functions at most 80 lines, measured by the TypeScript parser over src/ and tools/.
import { describe, expect, it } from 'vitest';
import { functionLengthsOf, functionsOver } from '../support/function-lengths.js';

const LIMIT = 80;
const root = new URL('../..', import.meta.url).pathname;
const long = functionsOver(root, ['src', 'tools'], LIMIT);

/** A function of the given body lines, in each of the measured forms. */
const bodyOf = (lines: number): string => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');

describe('function lengths', () => {
  it('measure every form of function from its first token to its last', () => {
    const text = [
      `function declared() {\n${bodyOf(79)}\n}`,
      `const arrow = () => {\n${bodyOf(80)}\n};`,
      `class Holder {\n  method() {\n${bodyOf(1)}\n  }\n}`,
      `register(function () {\n${bodyOf(2)}\n});`,
      `app.get('/', (c) => {\n${bodyOf(3)}\n});`,
    ].join('\n');
    expect(functionLengthsOf('sample.ts', text).map(({ name, lines }) => [name, lines])).toEqual([
      ['declared', 81],
      ['arrow', 82],
      ['method', 3],
      ['register callback', 4],
      ['app.get callback', 5],
    ]);
  });

  it(`stay at most ${LIMIT} lines in src/ and tools/`, () => {
    expect(long).toEqual([]);
  });
});
