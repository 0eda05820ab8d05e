// What tools/list shows, computed once from the registry at build time (dist/tools/manifest.json) so a
// starting server answers without loading the tool modules and their schemas: those load on the first
// call. Where no manifest was built (tests run from source), it is computed from the registry.
import { readFileSync } from 'node:fs';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { Toolset } from '../../tools/define.js';
import type { ViewName } from '../views/catalog.js';

export interface ToolManifestEntry {
  name: string;
  title: string;
  description: string;
  toolset: Toolset;
  scope: string | null;
  write: boolean;
  /** Reads the books mirror: hidden when it is off. */
  books: boolean;
  annotations: ToolAnnotations;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  /** The tool's view, for hosts that render MCP Apps. */
  view?: ViewName;
}

export const MANIFEST_URL = new URL('../../tools/manifest.json', import.meta.url);

/** The manifest as the registry gives it now. */
export async function computeToolManifest(): Promise<ToolManifestEntry[]> {
  const [{ TOOLS }, { advertisedJson }] = await Promise.all([import('./registry.js'), import('./compact-schema.js')]);
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    toolset: tool.toolset,
    scope: tool.scope,
    write: tool.write !== undefined,
    books: tool.books === true,
    annotations: { ...tool.annotations },
    inputSchema: advertisedJson(tool.input, 'input'),
    outputSchema: advertisedJson(tool.output, 'output'),
    ...(tool.view ? { view: tool.view } : {}),
  }));
}

/** The manifest itself, inlined where the server is bundled (scripts/bundle.mjs). */
declare const BUNDLED_TOOL_MANIFEST: ToolManifestEntry[] | undefined;

export async function loadToolManifest(): Promise<ToolManifestEntry[]> {
  if (typeof BUNDLED_TOOL_MANIFEST !== 'undefined') return BUNDLED_TOOL_MANIFEST;
  try {
    return JSON.parse(readFileSync(MANIFEST_URL, 'utf8')) as ToolManifestEntry[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return computeToolManifest();
  }
}
