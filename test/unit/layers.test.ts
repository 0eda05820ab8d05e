// The rooms of the house and which may import which are written once, as two tables in docs/architecture.md,
// each allowed import with its reason; this test holds the code to them: every file sits in a room, an import
// from one room to another is an edge of the table (edges are not followed through: a room above two others
// does not reach the third below them), every edge is used, no file reaches itself through its imports, and
// src/ holds only the entry at its root.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  filesOutsideRooms,
  type Graph,
  importCircles,
  importGraph,
  importsAgainstRooms,
  roomsFromMarkdown,
  unusedEdges,
} from '../support/import-graph.js';

const root = new URL('../..', import.meta.url).pathname;
const rooms = roomsFromMarkdown(readFileSync(`${root}docs/architecture.md`, 'utf8'));
const graph = importGraph(root, ['src', 'tools', 'prompts']);

/** The real graph with one more import. */
const planted = (from: string, to: string): Graph => {
  const copy: Graph = new Map([...graph].map(([file, targets]) => [file, new Set(targets)]));
  copy.get(from)?.add(to);
  return copy;
};

describe('the rooms of docs/architecture.md', () => {
  it('hold every source file', () => {
    expect(filesOutsideRooms(graph, rooms)).toEqual([]);
  });

  it('are kept: every import from one room to another is an edge of the table', () => {
    expect(importsAgainstRooms(graph, rooms)).toEqual([]);
  });

  it('allow no edge that no import uses', () => {
    expect(unusedEdges(graph, rooms)).toEqual([]);
  });

  it('hold no import circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('leave one file at the root of src/: the entry', () => {
    expect(readdirSync(`${root}src`).filter((name) => name.endsWith('.ts'))).toEqual(['cli.ts']);
  });

  it.each([
    ['a tool reaching into HTTP listeners', 'tools/format.ts', 'src/http/limits.ts'],
    ['an answer reaching past the mirror into the Postgres connections', 'src/answers/fresh.ts', 'src/store/postgres/db.ts'],
    ["the engine-neutral store's types naming an engine", 'src/store/store.ts', 'src/store/postgres/postgres-store.ts'],
    ["the engine-neutral store's types naming an engine's connections", 'src/store/store.ts', 'src/store/postgres/shared.ts'],
    ['the mirror importing the answers built on it', 'src/books/mirror.ts', 'src/answers/money.ts'],
    ['the client of the service importing MCP', 'src/api/client.ts', 'src/mcp/server.ts'],
    ['the MCP server importing a transport', 'src/mcp/server.ts', 'src/transports/serve-http.ts'],
  ])('refuse %s', (_what, from, to) => {
    expect(graph.has(from), `${from} exists`).toBe(true);
    expect(importsAgainstRooms(graph, rooms)).toEqual([]);
    expect(importsAgainstRooms(planted(from, to), rooms)).toEqual([expect.stringContaining(`${from} -> ${to}`)]);
  });
});

describe('the checks themselves', () => {
  const table = [
    '## Rooms',
    '| room | what it holds |',
    '| --- | --- |',
    '| `a/` | top |',
    '| `b/` | middle |',
    '| `c/` | bottom |',
    '| `c/one.ts` | a file of its own |',
    '',
    '## Which room may import which',
    '| from | may import | why |',
    '| --- | --- | --- |',
    '| `a/` | `b/` | a uses b |',
    '| `b/` | `c/` | b uses c |',
    '',
  ].join('\n');
  const drawn = roomsFromMarkdown(`\n${table}`);
  const small: Graph = new Map([
    ['a/x.ts', new Set(['c/z.ts'])],
    ['c/z.ts', new Set(['b/y.ts'])],
    ['b/y.ts', new Set(['c/w.ts', 'c/one.ts'])],
    ['c/w.ts', new Set(['c/z.ts'])],
    ['d/q.ts', new Set<string>()],
  ]);

  it('find an import against the table, an edge not followed through, and a file room apart from its folder', () => {
    expect(importsAgainstRooms(small, drawn)).toEqual([
      'a/x.ts -> c/z.ts (a/ may not import c/)',
      'c/z.ts -> b/y.ts (c/ may not import b/)',
      'b/y.ts -> c/one.ts (b/ may not import c/one.ts)',
    ]);
  });

  it('find a circle, a file outside every room, and an edge nothing uses', () => {
    expect(importCircles(small)).toEqual([['b/y.ts', 'c/w.ts', 'c/z.ts']]);
    expect(filesOutsideRooms(small, drawn)).toEqual(['d/q.ts']);
    expect(unusedEdges(new Map([['b/y.ts', new Set(['c/w.ts'])]]), drawn)).toEqual(['a/ -> b/']);
  });

  it('refuse an edge without a reason, or naming a room the table lacks', () => {
    expect(() => roomsFromMarkdown(`\n${table.replace('| a uses b |', '|  |')}`)).toThrow(/gives no reason/);
    expect(() => roomsFromMarkdown(`\n${table.replace('| `a/` | `b/` |', '| `a/` | `e/` |')}`)).toThrow(/lacks/);
  });
});
