// The layers are drawn once, in docs/architecture.md (a mermaid flowchart), and this test holds the code to the
// drawing: every file sits in a layer, imports run only along the arrows (or within one layer), no file
// reaches itself through its imports, and src/ holds only the entry at its root.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  filesOutsideLayers,
  type Graph,
  importCircles,
  importGraph,
  importsAgainstLayers,
  layersFromMermaid,
} from '../support/import-graph.js';

const root = new URL('../..', import.meta.url).pathname;
const layers = layersFromMermaid(readFileSync(`${root}docs/architecture.md`, 'utf8'));
const graph = importGraph(root, ['src', 'tools', 'prompts']);

describe('the layers of docs/architecture.md', () => {
  it('place every source file', () => {
    expect(filesOutsideLayers(graph, layers)).toEqual([]);
  });

  it('are kept: no import runs against the arrows', () => {
    expect(importsAgainstLayers(graph, layers)).toEqual([]);
  });

  it('hold no import circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('leave one file at the root of src/: the entry', () => {
    expect(readdirSync(`${root}src`).filter((name) => name.endsWith('.ts'))).toEqual(['cli.ts']);
  });
});

describe('the checks themselves', () => {
  const drawn = layersFromMermaid('```mermaid\nflowchart TD\n  top["a/"] --> mid["b/"]\n  mid --> low["c/"]\n```\n');
  const planted: Graph = new Map([
    ['a/x.ts', new Set(['c/z.ts'])],
    ['c/z.ts', new Set(['b/y.ts'])],
    ['b/y.ts', new Set(['c/w.ts'])],
    ['c/w.ts', new Set(['c/z.ts'])],
    ['d/q.ts', new Set<string>()],
  ]);

  it('find an import that runs back up, and allow one that skips a layer going down', () => {
    expect(importsAgainstLayers(planted, drawn)).toEqual(['c/z.ts -> b/y.ts (low may not use mid)']);
  });

  it('find a circle, and a file outside every layer', () => {
    expect(importCircles(planted)).toEqual([['b/y.ts', 'c/w.ts', 'c/z.ts']]);
    expect(filesOutsideLayers(planted, drawn)).toEqual(['d/q.ts']);
  });
});
