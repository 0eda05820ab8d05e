// Puts the selected tools on server instances: what tools/list shows comes from the manifest; the tool
// modules load on the first call. Every call goes through the one error boundary, and creates through
// the confirmation step when --confirm-writes is on.
import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpServer,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { ToolDefinition } from '../../tools/index.js';
import { VIEWS } from '../views/catalog.js';
import { advertisedHints } from './advertised-hints.js';
import { deferredSchema } from './compact-schema.js';
import { logToolFailure } from './refusals.js';
import { strictInput } from './strict-args.js';
import type { ToolManifestEntry } from './tool-manifest.js';

// Loaded with the first call, like the tools themselves.
const errorResultOf = async (err: unknown, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await import('./tool-errors.js')).errorResult(err, name, args);

type Schema = StandardSchemaWithJSON<Record<string, unknown>>;

export interface ToolRuntime {
  context: ToolContext;
  confirmWrites: boolean;
}

/**
 * A call a client asked to run as a task where it may (tasks/serve-tasks.ts): given the tool and its checked
 * arguments, it answers at once or makes the task; the placeholder it then returns is replaced by the task.
 */
export type TaskSlot = (tool: ToolDefinition, args: Record<string, unknown>, views: boolean) => Promise<CallToolResult>;

let registry: Promise<Map<string, ToolDefinition>> | null = null;

/** The tool modules, loaded once per process on first use. */
export function loadTool(name: string): Promise<ToolDefinition> {
  registry ??= import('../../tools/index.js').then(({ TOOLS }) => new Map(TOOLS.map((t) => [t.name, t])));
  return registry.then((tools) => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`the tool manifest names ${name}, which the registry does not have: rebuild`);
    return tool;
  });
}

/**
 * The client of this request renders MCP Apps views: it declared the extension with the views' MIME type, in
 * the request itself (2026-07-28) or when it initialized (2025 era).
 */
function rendersViews(server: McpServer, ctx: ServerContext): boolean {
  const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | ClientCapabilities
    | undefined;
  return getUiCapability(declared ?? server.server.getClientCapabilities())?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/** The context of one call: with a progress hook when the client sent a progress token. */
function callContext(context: ToolContext, ctx: ServerContext): ToolContext {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return context;
  let last = -1;
  const progress: ToolContext['progress'] = (update) => {
    // The protocol wants progress to rise with every notification: a report that does not is skipped.
    if (update.progress <= last) return;
    last = update.progress;
    const params = {
      progressToken: token,
      progress: last,
      message: update.message,
      ...(update.total === undefined ? {} : { total: update.total }),
    };
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params })
      .catch((err: unknown) => context.logger.warn({ err }, 'progress notification failed'));
  };
  return { ...context, progress };
}

/**
 * What only the tool's view reads, for a client that shows views. The call itself has succeeded (a draft may
 * have been created): a failure here is logged and the result goes without it, never turned into an error.
 */
async function viewMeta(tool: ToolDefinition, runtime: ToolRuntime, structured: unknown): Promise<{ _meta?: Record<string, unknown> }> {
  if (!tool.viewData) return {};
  try {
    const data = await tool.viewData(runtime.context, structured as never);
    return data ? { _meta: data } : {};
  } catch (err) {
    runtime.context.logger.warn({ err, tool: tool.name }, 'the data of the tool view could not be worked out: the result goes without it');
    return {};
  }
}

/** The tool's answer with this context (a call's, or a task's), as a result; a failure as a tool error. */
export async function run(
  tool: ToolDefinition,
  runtime: ToolRuntime,
  args: Record<string, unknown>,
  context: ToolContext,
  views: boolean,
): Promise<CallToolResult> {
  try {
    const outcome = await tool.handler(context, args);
    return {
      content: [{ type: 'text', text: outcome.text }],
      structuredContent: outcome.structured as Record<string, unknown>,
      ...(views ? await viewMeta(tool, runtime, outcome.structured) : {}),
    };
  } catch (err) {
    logToolFailure(runtime.context.logger, tool.name, err);
    return errorResultOf(err, tool.name, args);
  }
}

async function call(
  server: McpServer,
  entry: ToolManifestEntry,
  runtime: ToolRuntime,
  args: Record<string, unknown>,
  ctx: ServerContext,
  taskSlot: ((ctx: ServerContext) => TaskSlot | undefined) | undefined,
) {
  const tool = await loadTool(entry.name);
  const views = tool.view !== undefined && rendersViews(server, ctx);
  const slot = taskSlot?.(ctx);
  if (slot) return slot(tool, args, views);
  if (runtime.confirmWrites && tool.write) {
    const write = tool.write;
    const { confirmWrite } = await import('./confirm.js');
    let confirmation: Awaited<ReturnType<typeof confirmWrite>>;
    try {
      confirmation = await confirmWrite(server, ctx, () => write.summarize(runtime.context, args));
    } catch (err) {
      return errorResultOf(err, tool.name, args);
    }
    if (!confirmation.proceed) return confirmation.result;
  }
  return run(tool, runtime, args, callContext(runtime.context, ctx), views);
}

type ToolConfig = Pick<ToolManifestEntry, 'title' | 'description' | 'annotations'> & { inputSchema: Schema; outputSchema: Schema };

/**
 * Puts the selected tools on server instances. What does not depend on the instance (the advertised
 * and deferred schemas, the annotations) is built once here; each instance gets only its own handlers,
 * since confirmation asks through the instance that serves the call.
 */
export function toolRegistrar(
  entries: readonly ToolManifestEntry[],
  runtime: ToolRuntime,
): (server: McpServer, only?: string, taskSlot?: (ctx: ServerContext) => TaskSlot | undefined) => void {
  const configs = entries.map((entry): [ToolManifestEntry, ToolConfig] => [
    entry,
    {
      title: entry.title,
      description: entry.description,
      inputSchema: strictInput(
        entry.name,
        deferredSchema(entry.inputSchema, async () => (await loadTool(entry.name)).input),
        async () => (await loadTool(entry.name)).input,
      ),
      outputSchema: deferredSchema(entry.outputSchema, async () => (await loadTool(entry.name)).output),
      annotations: advertisedHints(entry.annotations),
    },
  ]);
  return (server, only, taskSlot) => {
    for (const [entry, config] of configs) {
      if (only !== undefined && entry.name !== only) continue;
      const handler = (args: unknown, ctx: ServerContext) => call(server, entry, runtime, args as Record<string, unknown>, ctx, taskSlot);
      // A host that renders MCP Apps shows the tool's view with its result; other hosts never read _meta. Only
      // the extension's current key: its helper (registerAppTool) also writes the deprecated "ui/resourceUri",
      // which hosts read as the same thing, and which every conversation would pay for in tokens (78 in all).
      const meta = entry.view ? { _meta: { ui: { resourceUri: VIEWS[entry.view].uri } } } : {};
      server.registerTool(entry.name, { ...config, ...meta }, handler);
    }
  };
}
