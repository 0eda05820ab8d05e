// The hints a tools/list entry carries: only those that say something the MCP defaults do not
// (readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true), and the
// destructive and idempotent hints only on a tool that writes, the only place the specification gives
// them meaning. Every tool still defines all four; a client reading the defaults learns the same.
import type { ToolAnnotations } from '@modelcontextprotocol/server';

const DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

export function advertisedHints(hints: ToolAnnotations): ToolAnnotations {
  const out: ToolAnnotations = {};
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = hints[key];
    if (value === undefined || value === DEFAULTS[key]) continue;
    if (hints.readOnlyHint === true && (key === 'destructiveHint' || key === 'idempotentHint')) continue;
    out[key] = value;
  }
  return out;
}
