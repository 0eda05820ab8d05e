// The project's own imports as a graph of files, and the layers that docs/architecture.md draws, so a test can
// hold the code to the drawing: an import may run only along the drawing's arrows (or within one layer),
// and no file may reach itself through its imports.
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

export interface Layers {
  /** Each layer's path prefix ("src/api/", "src/cli.ts"), by its id in the drawing. */
  paths: Map<string, string>;
  /** The arrows: which layers each layer may use directly. */
  arrows: Map<string, Set<string>>;
}

/** The layers of a mermaid flowchart: nodes written `id["path"]`, arrows `a --> b`. */
export function layersFromMermaid(markdown: string): Layers {
  const block = /```mermaid\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (!block) throw new Error('no mermaid block');
  const paths = new Map<string, string>();
  const arrows = new Map<string, Set<string>>();
  const node = (token: string): string => {
    const m = /^(\w+)(?:\["([^"]+)"\])?$/.exec(token.trim());
    if (!m) throw new Error(`cannot read the node "${token}"`);
    const [, id, path] = m as unknown as [string, string, string | undefined];
    if (path) paths.set(id, path);
    if (!arrows.has(id)) arrows.set(id, new Set());
    return id;
  };
  for (const line of block.split('\n')) {
    const text = line.replace(/%%.*$/, '').trim();
    if (!text || /^(flowchart|graph)\b/.test(text)) continue;
    const ids = text.split('-->').map(node);
    for (let i = 1; i < ids.length; i++) arrows.get(ids[i - 1] as string)?.add(ids[i] as string);
  }
  return { paths, arrows };
}

/** The layer a file belongs to: the longest path of the drawing that holds it; null when none does. */
export function layerOf(layers: Layers, file: string): string | null {
  let best: string | null = null;
  let bestLength = -1;
  for (const [id, path] of layers.paths) {
    const holds = path.endsWith('/') ? file.startsWith(path) : file === path;
    if (holds && path.length > bestLength) {
      best = id;
      bestLength = path.length;
    }
  }
  return best;
}

function reach(layers: Layers, from: string): Set<string> {
  const seen = new Set<string>([from]);
  const todo = [from];
  while (todo.length > 0) {
    for (const next of layers.arrows.get(todo.pop() as string) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return seen;
}

/** Imports that run against the drawing: from a layer to one its arrows do not reach. */
export function importsAgainstLayers(graph: Graph, layers: Layers): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(layers, file);
    for (const target of targets) {
      const to = layerOf(layers, target);
      if (from === null || to === null) continue;
      if (!reach(layers, from).has(to)) out.push(`${file} -> ${target} (${from} may not use ${to})`);
    }
  }
  return out;
}

/** Files the drawing does not place in any layer. */
export function filesOutsideLayers(graph: Graph, layers: Layers): string[] {
  return [...graph.keys()].filter((file) => layerOf(layers, file) === null);
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
