// Puts the selected tools on server instances: what tools/list shows comes from the manifest; the tool
// modules load on the first call. Every call goes through the one error boundary, and creates through
// the confirmation step when --confirm-writes is on. A call whose request opts into MCP Tasks goes to the
// instance's tasks (tasks/serve-tasks.ts), and a task it made is the tools/call's answer; every other call
// runs as it always did, without touching them.
import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpServer,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import type * as z from 'zod/v4';
import type { ToolContext } from '../../tools/context.js';
import { inLane, type KeyPace, type WorkLane } from '../api/lane.js';
import { VIEWS } from '../views/catalog.js';
import { advertisedHints } from './advertised-hints.js';
import {
  ACROSS,
  ALL,
  type Businesses,
  type BusinessUnit,
  inBusiness,
  orAcross,
  pickBusiness,
  takingBusiness,
  withBusinessArgument,
} from './businesses.js';
import { logToolFailure } from './refusals.js';
import type { ToolDefinition } from './registry.js';
import { strictInput } from './strict-args.js';
import { TASKS_EXTENSION, waitingWords } from './tasks/task-words.js';
import { wrapToolsCall } from './tasks/tools-call-seam.js';
import type { ToolManifestEntry } from './tool-manifest.js';

// Loaded with the first call, like the tools themselves.
const errorResultOf = async (err: unknown, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await import('./tool-errors.js')).errorResult(err, name, args);

type Schema = StandardSchemaWithJSON<Record<string, unknown>>;

/**
 * A schema the SDK can advertise (`json`, from the manifest) and validate with: `load` brings the zod
 * schema in on first use, so nothing is built before the first call needs it.
 */
function deferredSchema(json: Record<string, unknown>, load: () => Promise<z.ZodType>): Schema {
  return {
    '~standard': {
      version: 1,
      vendor: 'invoicing-mcp',
      validate: async (value: unknown) => (await load())['~standard'].validate(value),
      jsonSchema: { input: () => json, output: () => json },
    },
  } as Schema;
}

export interface ToolRuntime {
  context: ToolContext;
  confirmWrites: boolean;
  /** The business the calls answer for, on a server of several: named first in every result and confirmation. */
  business?: string | null;
}

/** The key under a result's _meta that names its business for a view (on a server of several). */
export const BUSINESS_META_KEY = 'invoicing-mcp/business';

/** `result` saying first whose books it is from, on a server of several businesses. */
function named(result: CallToolResult, business: string | null | undefined): CallToolResult {
  if (!business) return result;
  const [first, ...rest] = result.content;
  const content = first?.type === 'text' ? [{ ...first, text: `Business: ${business}.\n${first.text}` }, ...rest] : result.content;
  return { ...result, content, _meta: { ...result._meta, [BUSINESS_META_KEY]: business } };
}

/** One server instance's tasks (tasks/serve-tasks.ts), for the calls whose request opts into them. */
export interface TaskCalls {
  /** The tools whose answers may become tasks. */
  tools: ReadonlySet<string>;
  /**
   * Runs the call with its checked arguments as a task of `unit` (kept in its books): its result when it ends
   * within the short wait, else the task's handle; null when the call is to answer as for a client without tasks
   * (its owner's tasks are at their bound).
   */
  start(
    unit: BusinessUnit,
    tool: ToolDefinition,
    args: Record<string, unknown>,
    views: boolean,
  ): Promise<{ result: CallToolResult } | { task: unknown } | null>;
}

/** What a call that became a task returns to McpServer's handler, which the task's handle then replaces. */
const PLACEHOLDER: CallToolResult = { content: [], isError: true };

let registry: Promise<Map<string, ToolDefinition>> | null = null;

/** The tool modules, loaded once per process on first use. */
export function loadTool(name: string): Promise<ToolDefinition> {
  registry ??= import('./registry.js').then(({ TOOLS }) => new Map(TOOLS.map((t) => [t.name, t])));
  return registry.then((tools) => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`the tool manifest names ${name}, which the registry does not have: rebuild`);
    return tool;
  });
}

/** What the client declared on this request itself (2026-07-28 carries its capabilities on each). */
const declaredOn = (ctx: ServerContext): ClientCapabilities | undefined =>
  (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;

/**
 * The client of this request renders MCP Apps views: it declared the extension with the views' MIME type, in
 * the request itself (2026-07-28) or when it initialized (2025 era).
 */
function rendersViews(server: McpServer, ctx: ServerContext): boolean {
  return getUiCapability(declaredOn(ctx) ?? server.server.getClientCapabilities())?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/** The request opts into MCP Tasks: it declares the extension itself (revision 2026-07-28). */
function asksForTask(ctx: ServerContext): boolean {
  const mine = (declaredOn(ctx) as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[TASKS_EXTENSION];
  return mine !== null && typeof mine === 'object' && !Array.isArray(mine);
}

/**
 * The context of one call: with a progress hook when the client sent a progress token, and `waiting`, which
 * tells it when a service call waits on the key's limit.
 */
function callContext(context: ToolContext, ctx: ServerContext): ToolContext & { waiting?: WorkLane['waiting'] } {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return context;
  let last = -1;
  let total: number | undefined;
  const notify = (progress: number, message: string): void => {
    const params = { progressToken: token, progress, message, ...(total === undefined ? {} : { total }) };
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params })
      .catch((err: unknown) => context.logger.warn({ err }, 'progress notification failed'));
  };
  const progress: ToolContext['progress'] = (update) => {
    // The protocol wants progress to rise with every notification: a report that does not is skipped.
    if (update.progress <= last) return;
    last = update.progress;
    total = update.total;
    notify(last, update.message);
  };
  // A wait on the key's limit says why and how long; a hair of progress keeps the figures rising.
  const waiting = (leftMs: number, pace: KeyPace): void => {
    last = Math.max(0, last) + 0.001;
    notify(last, waitingWords(leftMs, pace)[0]);
  };
  return { ...context, progress, waiting };
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
  /** Errors thrown on to the caller, not answered: a task's run retries those it can wait out. */
  rethrow: (err: unknown) => boolean = () => false,
): Promise<CallToolResult> {
  try {
    const outcome = await tool.handler(context, args);
    const result: CallToolResult = {
      content: [{ type: 'text', text: outcome.text }],
      structuredContent: outcome.structured as Record<string, unknown>,
      ...(views ? await viewMeta(tool, runtime, outcome.structured) : {}),
    };
    return named(result, runtime.business);
  } catch (err) {
    if (rethrow(err)) throw err;
    logToolFailure(runtime.context.logger, tool.name, err);
    return named(await errorResultOf(err, tool.name, args), runtime.business);
  }
}

/** What every instance's calls are served with: the businesses, and whether creates wait for the user's yes. */
export interface ToolServing {
  businesses: Businesses;
  confirmWrites: boolean;
}

/** The runtime of one business's calls. */
export const runtimeOf = (unit: BusinessUnit, confirmWrites: boolean): ToolRuntime => ({
  context: unit.context,
  confirmWrites,
  business: unit.name,
});

async function call(
  server: McpServer,
  entry: ToolManifestEntry,
  serving: ToolServing,
  given: Record<string, unknown>,
  ctx: ServerContext,
  tasks: { calls: TaskCalls; made: Map<unknown, unknown> } | undefined,
) {
  const { business, ...args } = given;
  // check_connection without a business: every business's connection.
  const listing = entry.name === 'check_connection' && business === undefined && serving.businesses.several;
  const picked = await pickBusiness(serving.businesses, listing ? ALL : business, ACROSS.has(entry.name));
  if ('refusal' in picked) return (await import('./tool-errors.js')).toolError(picked.refusal);
  const tool = await loadTool(entry.name);
  if ('all' in picked) {
    const { across } = await import('./across-businesses.js');
    return across(tool.name, picked.all, (unit) => run(tool, runtimeOf(unit, false), args, unit.context, false));
  }
  const { unit } = picked;
  const runtime = runtimeOf(unit, serving.confirmWrites);
  const views = tool.view !== undefined && rendersViews(server, ctx);
  if (tasks?.calls.tools.has(entry.name) && asksForTask(ctx)) {
    const started = await tasks.calls.start(unit, tool, args, views);
    if (started !== null) {
      if ('result' in started) return started.result;
      tasks.made.set(ctx.mcpReq.id, started.task);
      return PLACEHOLDER;
    }
  }
  if (runtime.confirmWrites && tool.write) {
    const write = tool.write;
    const { confirmWrite } = await import('./confirm.js');
    let confirmation: Awaited<ReturnType<typeof confirmWrite>>;
    try {
      confirmation = await confirmWrite(server, ctx, async () => `${inBusiness(unit)}${await write.summarize(unit.context, args)}`);
    } catch (err) {
      return errorResultOf(err, tool.name, args);
    }
    if (!confirmation.proceed) return confirmation.result;
  }
  const { waiting, ...context } = callContext(unit.context, ctx);
  // A person's call: its service calls wait a short while on the key's limit, and say so when they do.
  return waiting ? inLane({ waiting }, () => run(tool, runtime, args, context, views)) : run(tool, runtime, args, context, views);
}

type ToolConfig = Pick<ToolManifestEntry, 'title' | 'description' | 'annotations'> & { inputSchema: Schema; outputSchema: Schema };

/**
 * Puts the selected tools on server instances. What does not depend on the instance (the advertised
 * and deferred schemas, the annotations) is built once here; each instance gets only its own handlers,
 * since confirmation asks through the instance that serves the call.
 */
export function toolRegistrar(
  entries: readonly ToolManifestEntry[],
  serving: ToolServing,
): (server: McpServer, only?: string, tasks?: TaskCalls) => void {
  const { several } = serving.businesses;
  const configs = entries.map((entry): [ToolManifestEntry, ToolConfig] => {
    const load = async () => (await loadTool(entry.name)).input;
    const json = several ? withBusinessArgument(entry.inputSchema, entry.name) : entry.inputSchema;
    const input = strictInput(entry.name, deferredSchema(json, load), load);
    const output = deferredSchema(entry.outputSchema, async () => (await loadTool(entry.name)).output);
    return [
      entry,
      {
        title: entry.title,
        description: entry.description,
        inputSchema: several ? takingBusiness(input) : input,
        outputSchema: several && ACROSS.has(entry.name) ? orAcross(output) : output,
        annotations: advertisedHints(entry.annotations),
      },
    ];
  });
  return (server, only, calls) => {
    // The handles of the tasks this instance's calls made, by request id, until McpServer's handler returns.
    const tasks = calls && { calls, made: new Map<unknown, unknown>() };
    for (const [entry, config] of configs) {
      if (only !== undefined && entry.name !== only) continue;
      const handler = (args: unknown, ctx: ServerContext) => call(server, entry, serving, args as Record<string, unknown>, ctx, tasks);
      // A host that renders MCP Apps shows the tool's view with its result; other hosts never read _meta. Only
      // the extension's current key: its helper (registerAppTool) also writes the deprecated "ui/resourceUri",
      // which hosts read as the same thing, and which every conversation would pay for in tokens (78 in all).
      const meta = entry.view ? { _meta: { ui: { resourceUri: VIEWS[entry.view].uri } } } : {};
      server.registerTool(entry.name, { ...config, ...meta }, handler);
    }
    if (!tasks) return;
    const { made } = tasks;
    wrapToolsCall(server, (inner) => async (request, ctx) => {
      const id = ctx.mcpReq.id;
      try {
        const result = await inner(request, ctx);
        return made.get(id) ?? result;
      } finally {
        made.delete(id);
      }
    });
  };
}
