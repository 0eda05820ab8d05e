// Which tools a server shows (the registry filtered by --read-only, --toolsets and, when known, the key's
// scopes), and so which prompts, resources and views it offers. Pure: nothing here waits on the network.
import type { Toolset } from '../../tools/define.js';

/** What selection reads of a tool: the registry's definitions and the manifest's entries both have it. */
export interface Selectable {
  toolset: Toolset;
  scope: string | null;
  write?: unknown;
  books?: boolean;
}

export interface ToolSelection {
  readOnly: boolean;
  /** null: every toolset. */
  toolsets: readonly Toolset[] | null;
  /** The key's scopes when a session already told us; null when not known yet. */
  scopes?: readonly string[] | null;
  /** Whether the books mirror is on; off (false) hides the answer tools that read it. */
  books?: boolean;
}

export function selectTools<T extends Selectable>(tools: readonly T[], selection: ToolSelection): T[] {
  return tools.filter(
    (tool) =>
      !(selection.readOnly && tool.write) &&
      !(selection.books === false && tool.books) &&
      (selection.toolsets === null || tool.toolset === 'connection' || selection.toolsets.includes(tool.toolset)) &&
      (!selection.scopes || tool.scope === null || selection.scopes.includes(tool.scope)),
  );
}

/** A prompt or resource that works through tools: worth offering only while every one of them is shown. */
export interface ThroughTools {
  tools: readonly string[];
}

/** What of `items` the shown tools reach: the prompts, resources and templates follow the tools' selection. */
export function reachedBy<T extends ThroughTools>(items: readonly T[], shown: readonly { name: string }[]): T[] {
  const names = new Set(shown.map((tool) => tool.name));
  return items.filter((item) => item.tools.every((name) => names.has(name)));
}

/** The views the shown tools name: a view is offered while a tool that shows it is. */
export function viewsOf<V extends string>(shown: readonly { view?: V | undefined }[]): Set<V> {
  return new Set(shown.flatMap((tool) => (tool.view === undefined ? [] : [tool.view])));
}
