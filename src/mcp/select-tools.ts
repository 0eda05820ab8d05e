// Which tools a server shows: the registry filtered by --read-only, --toolsets and, when known, the
// key's scopes. Pure: the tools list never waits on the network.
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
