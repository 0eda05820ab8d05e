// Which tools a server shows: the registry filtered by --read-only, --toolsets and, when known, the
// key's scopes. Pure: the tools list never waits on the network.
import type { ToolDefinition, Toolset } from '../../tools/index.js';

export interface ToolSelection {
  readOnly: boolean;
  /** null: every toolset. */
  toolsets: readonly Toolset[] | null;
  /** The key's scopes when a session already told us; null when not known yet. */
  scopes?: readonly string[] | null;
}

export function selectTools(tools: readonly ToolDefinition[], selection: ToolSelection): ToolDefinition[] {
  return tools.filter(
    (tool) =>
      !(selection.readOnly && tool.write) &&
      (selection.toolsets === null || tool.toolset === 'connection' || selection.toolsets.includes(tool.toolset)) &&
      (!selection.scopes || tool.scope === null || selection.scopes.includes(tool.scope)),
  );
}
