// The project's own imports as a graph of files, and the rooms and allowed imports that docs/architecture.md
// writes as two tables, so a test can hold the code to them: an import from one room to another must be an
// edge of the table (edges are not followed through), and no file or room may reach itself through imports.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

export type Graph = Map<string, Set<string>>;

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;

function* sourceFiles(root: string, dir: string): Generator<string> {
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) yield* sourceFiles(root, path);
    else if (name.endsWith('.ts')) yield path;
  }
}

/** Every relative import (static, dynamic and type-only) of the .ts files under these folders. */
export function importGraph(root: string, folders: readonly string[]): Graph {
  const graph: Graph = new Map();
  for (const folder of folders) {
    for (const file of sourceFiles(root, folder)) {
      const text = readFileSync(join(root, file), 'utf8');
      const targets = new Set<string>();
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[2] as string;
        targets.add(normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
      }
      graph.set(file, targets);
    }
  }
  return graph;
}

/** The rooms of the house and the imports allowed between them, as docs/architecture.md writes them. */
export interface Rooms {
  /** Each room's path: a folder ("src/api/") or one file ("src/cli.ts"). */
  paths: readonly string[];
  /** For each room, the rooms its files may import (within a room any import is fine). */
  edges: ReadonlyMap<string, ReadonlySet<string>>;
  /** The ground: rooms that every other room may import (a row from `every room`); one of them only by its own row. */
  ground: ReadonlySet<string>;
}

/** The from-cell of a row that lets every room (but the ground) import a room of the ground. */
export const EVERY_ROOM = 'every room';

/** The rows of the markdown table that follows `heading`, each as its cells with backticks taken off. */
function tableAfter(markdown: string, heading: string): string[][] {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`no heading "${heading}"`);
  const lines = markdown.slice(at + heading.length + 2).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
  }
  return rows;
}

/** The rooms table (`## Rooms`: room, what it holds) and the edges table (`## Which room may import which`). */
export function roomsFromMarkdown(markdown: string): Rooms {
  const paths = tableAfter(markdown, '## Rooms').map(([room]) => room as string);
  const edges = new Map<string, Set<string>>(paths.map((room) => [room, new Set<string>()]));
  const ground = new Set<string>();
  for (const [from, to, why] of tableAfter(markdown, '## Which room may import which')) {
    for (const room of from === EVERY_ROOM ? [to] : [from, to])
      if (!edges.has(room as string)) throw new Error(`the edge ${from} -> ${to} names a room the rooms table lacks`);
    if (!why) throw new Error(`the edge ${from} -> ${to} gives no reason`);
    if (from === EVERY_ROOM) ground.add(to as string);
    else edges.get(from as string)?.add(to as string);
  }
  return { paths, edges, ground };
}

/** Whether a file of room `from` may import one of room `to`: the table's edge, or a room of the ground. */
const mayImport = (rooms: Rooms, from: string, to: string): boolean =>
  rooms.edges.get(from)?.has(to) === true || (rooms.ground.has(to) && !rooms.ground.has(from));

/** The room a file belongs to: the longest room path that holds it; null when none does. */
export function roomOf(rooms: Rooms, file: string): string | null {
  let best: string | null = null;
  for (const path of rooms.paths) {
    const holds = path.endsWith('/') ? file.startsWith(path) : file === path;
    if (holds && path.length > (best?.length ?? -1)) best = path;
  }
  return best;
}

/** Imports from one room to another that the edges table does not allow (edges are not followed through). */
export function importsAgainstRooms(graph: Graph, rooms: Rooms): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(rooms, file);
    for (const target of targets) {
      const to = roomOf(rooms, target);
      if (from === null || to === null || from === to) continue;
      if (!mayImport(rooms, from, to)) out.push(`${file} -> ${target} (${from} may not import ${to})`);
    }
  }
  return out;
}

/** Files no room holds. */
export function filesOutsideRooms(graph: Graph, rooms: Rooms): string[] {
  return [...graph.keys()].filter((file) => roomOf(rooms, file) === null);
}

/** Edges of the table that no import uses: an edge stays only while the design needs it. */
export function unusedEdges(graph: Graph, rooms: Rooms): string[] {
  const used = new Set<string>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [roomOf(rooms, file), roomOf(rooms, target)];
      if (from === to) continue;
      used.add(`${from} -> ${to}`);
      if (to !== null && rooms.ground.has(to)) used.add(`${EVERY_ROOM} -> ${to}`);
    }
  }
  const drawn = [...rooms.edges].flatMap(([from, tos]) => [...tos].map((to) => `${from} -> ${to}`));
  return [...drawn, ...[...rooms.ground].map((to) => `${EVERY_ROOM} -> ${to}`)].filter((edge) => !used.has(edge));
}

/** The table's edges as a graph of rooms, each ground room under every other room, to find a circle of rooms. */
export function roomGraph(rooms: Rooms): Graph {
  const graph: Graph = new Map(rooms.paths.map((room) => [room, new Set(rooms.edges.get(room))]));
  for (const [room, tos] of graph) if (!rooms.ground.has(room)) for (const to of rooms.ground) tos.add(to);
  return graph;
}

/** Each set of files that import one another round in a circle (Tarjan's strongly connected components). */
export function importCircles(graph: Graph): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, order.get(next) as number));
    }
    if (low.get(file) === order.get(file)) {
      const circle: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        circle.push(member);
      } while (member !== file);
      if (circle.length > 1 || graph.get(file)?.has(file)) circles.push(circle.sort());
    }
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return circles;
}
