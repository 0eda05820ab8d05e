// A tool is data: name, words for the model, its family and scope, zod input and output, the four hints,
// and a handler that returns the structured result and a compact text. The registry drives everything else.
import type * as z from 'zod/v4';
import type { ViewName } from '../src/views/catalog.js';
import type { ToolContext } from './context.js';

export const TOOLSETS = ['connection', 'customers', 'invoices', 'quotes', 'payments', 'products'] as const;
export type Toolset = (typeof TOOLSETS)[number];

export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolOutcome<O> {
  structured: O;
  text: string;
}

/** What a create shows the user before it runs, when writes need confirmation. */
export interface WriteConfirmation<I> {
  summarize(ctx: ToolContext, args: I): Promise<string>;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  toolset: Toolset;
  /** The API scope the tool needs; null for tools any key may call. */
  scope: string | null;
  input: I;
  output: O;
  annotations: ToolHints;
  /** Answers read the books mirror: hidden when it is off (--mirror off). */
  books?: boolean;
  /** Present on tools that write: they are removed by --read-only and confirmed by --confirm-writes. */
  write?: WriteConfirmation<z.infer<I>>;
  /** The ui:// view a host that renders MCP Apps shows with the result (src/views/catalog.ts). */
  view?: ViewName;
  /**
   * What only the view reads, worked out after the call for a client that shows views, and sent in the
   * result's _meta (never in the text or the structured content); null when there is nothing to add.
   */
  viewData?(ctx: ToolContext, result: z.infer<O>): Promise<Record<string, unknown> | null>;
  handler(ctx: ToolContext, args: z.infer<I>): Promise<ToolOutcome<z.infer<O>>>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return tool;
}

export const READ_HINTS: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
export const CREATE_HINTS: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
