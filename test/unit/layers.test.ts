// The rooms of the house and which may import which are written once, as two tables in docs/architecture.md,
// each allowed import with its reason; this test holds the code to them: every file sits in a room, an import
// from one room to another is an edge of the table (edges are not followed through), every edge is used, no
// file or room reaches itself through its imports (so none runs back up), and src/ holds only the entry.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  filesOutsideRooms,
  type Graph,
  importCircles,
  importGraph,
  importsAgainstRooms,
  roomGraph,
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

  it('hold no circle of rooms: no import runs back up', () => {
    expect(importCircles(roomGraph(rooms))).toEqual([]);
  });

  it('are folders, but for the entry', () => {
    expect(rooms.paths.filter((room) => !room.endsWith('/'))).toEqual(['src/cli.ts']);
  });

  it('are few enough to read: at most 55 allowed imports', () => {
    expect([...rooms.edges.values()].reduce((n, tos) => n + tos.size, rooms.ground.size)).toBeLessThanOrEqual(55);
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
    ['the basics importing the client of the service', 'src/core/service-clock.ts', 'src/api/client.ts'],
    ['the basics importing the logger (one room of the ground another only by its own row)', 'src/core/decimal.ts', 'src/log/logger.ts'],
    ['the store importing the mirror above it', 'src/store/sql-store.ts', 'src/books/mirror.ts'],
    ['one engine importing the other', 'src/store/sqlite/sums.ts', 'src/store/postgres/db.ts'],
    ['an answer importing the registry that lists it', 'src/answers/sales/report-sales.ts', 'src/mcp/registry.ts'],
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
    '| `g/` | the ground |',
    '',
    '## Which room may import which',
    '| from | may import | why |',
    '| --- | --- | --- |',
    '| every room | `g/` | everyone uses g |',
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
    ['a/v.ts', new Set(['g/k.ts'])],
    ['g/k.ts', new Set(['b/y.ts'])],
  ]);

  it('find an import against the table, an edge not followed through, and a file room apart from its folder', () => {
    expect(importsAgainstRooms(small, drawn)).toEqual([
      'a/x.ts -> c/z.ts (a/ may not import c/)',
      'c/z.ts -> b/y.ts (c/ may not import b/)',
      'b/y.ts -> c/one.ts (b/ may not import c/one.ts)',
      'g/k.ts -> b/y.ts (g/ may not import b/)',
    ]);
  });

  it('find a circle, a file outside every room, and an edge nothing uses', () => {
    expect(importCircles(small)).toEqual([['b/y.ts', 'c/w.ts', 'c/z.ts']]);
    expect(filesOutsideRooms(small, drawn)).toEqual(['d/q.ts']);
    expect(unusedEdges(new Map([['b/y.ts', new Set(['c/w.ts'])]]), drawn)).toEqual(['a/ -> b/', 'every room -> g/']);
  });

  it('find a circle of rooms in the table: an edge that runs back up', () => {
    expect(importCircles(roomGraph(drawn))).toEqual([]);
    const back = roomsFromMarkdown(
      `\n${table.replace('| `b/` | `c/` | b uses c |', '| `b/` | `c/` | b uses c |\n| `c/` | `a/` | c uses a |')}`,
    );
    expect(importCircles(roomGraph(back))).toEqual([['a/', 'b/', 'c/']]);
  });

  it('let one room of the ground import another only by its own row, and find a circle between them', () => {
    const twoGrounds = table.replace('| `g/` | the ground |', '| `g/` | the ground |\n| `h/` | more ground |');
    const rows = '| every room | `h/` | everyone uses h |\n| `h/` | `g/` | h uses g |';
    const ground = roomsFromMarkdown(
      `\n${twoGrounds.replace('| every room | `g/` | everyone uses g |', `| every room | \`g/\` | everyone uses g |\n${rows}`)}`,
    );
    const graph: Graph = new Map([
      ['h/x.ts', new Set(['g/k.ts'])],
      ['g/k.ts', new Set(['h/x.ts'])],
    ]);
    expect(importsAgainstRooms(graph, ground)).toEqual(['g/k.ts -> h/x.ts (g/ may not import h/)']);
    expect(importCircles(roomGraph(ground))).toEqual([]);
  });

  it('refuse an edge without a reason, or naming a room the table lacks', () => {
    expect(() => roomsFromMarkdown(`\n${table.replace('| a uses b |', '|  |')}`)).toThrow(/gives no reason/);
    expect(() => roomsFromMarkdown(`\n${table.replace('| `a/` | `b/` |', '| `a/` | `e/` |')}`)).toThrow(/lacks/);
  });
});
