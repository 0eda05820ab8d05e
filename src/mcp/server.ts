// Builds the MCP server: one factory makes an instance per connection (stdio, a 2025-era HTTP session) or
// per request (stateless HTTP), all sharing the same client (session, pacing, cache) and event bus.
import { McpServer } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { EventBus } from '../events/bus.js';
import { promptRegistrar } from './prompts.js';
import { toolRegistrar } from './register-tools.js';
import { EVERYTHING, surfaceFor } from './request-surface.js';
import { resourceRegistrar } from './resources.js';
import { selectTools, type ToolSelection, viewsOf } from './select-tools.js';
import type { ServingUnit } from './serving-unit.js';
import { serveSubscriptions } from './subscriptions.js';
import { serveTasks } from './tasks/serve-tasks.js';
import { TaskBound } from './tasks/task-bound.js';
import { TaskRuns, type TaskRunsOptions } from './tasks/task-runs.js';
import { TASKS_EXTENSION } from './tasks/task-words.js';
import { loadToolManifest } from './tool-manifest.js';

export type { ServingUnit };

export const SERVER_NAME = 'invoicing-mcp';
export const SERVER_VERSION = '0.1.0';

export interface ServerOptions {
  selection: ToolSelection;
  confirmWrites: boolean;
  /**
   * Where events arrive; subscriptions are offered only when something feeds it (webhooks or the mirror's sync).
   * `wanted` starts what feeds it, before a subscription is answered (hosted mode: the tenant's mirror).
   */
  events: { bus: EventBus; live: boolean; wanted?: (() => Promise<void>) | undefined };
  /** How long answers wait before they become tasks, and how tasks are kept (MCP Tasks; defaults otherwise). */
  tasks?: TaskRunsOptions;
}

/**
 * Whose a task is: the grant of a hosted request; else the one user of a server on one key, whichever of its
 * processes or connections asks, so that a desktop's tasks outlive a restart on the same mirror (whose file
 * is the key's alone: see books/location.ts).
 */
function ownerOf(unit: ServingUnit, keyId: string): string {
  const grant = unit.auth?.extra?.grantId;
  return typeof grant === 'string' ? `grant:${grant}` : `key:${keyId}`;
}

export type ServerFactory = (unit: ServingUnit) => McpServer;

const INSTRUCTIONS =
  'Books of one business on the Invoicing Service: customers, invoices, quotes, payments, products and stock. ' +
  "Amounts are exact decimal strings in the record's currency. Lists are oldest first and paged (per_page up to 100). " +
  'Creates make customers and DRAFT invoices only; a person in the business reviews and sends every invoice.';

/**
 * The factory. Everything that does not depend on the serving unit (the tools' schemas, the resource
 * templates and readers, the prompts' argument schemas and completions) is built once, on the first
 * instance (start-up stays lazy), and shared; an instance that answers one request gets only what that
 * request needs (request-surface.ts). Instances themselves are never reused: the SDK refuses an instance
 * still serving, and each holds its own client's capabilities, identity and protocol version.
 */
export async function createServerFactory(ctx: ToolContext, options: ServerOptions): Promise<ServerFactory> {
  const tools = selectTools(await loadToolManifest(), { ...options.selection, books: ctx.books != null });
  const { bus, live, wanted } = options.events;
  // `logging`: the SDK answers logging/setLevel and filters the notices sent as notifications/message.
  // Tasks for answers that may wait on the service's pace, where there are books to keep them in.
  const tasks = ctx.books ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const serverOptions = {
    instructions: INSTRUCTIONS,
    capabilities: { logging: {}, ...(live ? { resources: { subscribe: true } } : {}), ...tasks },
  };
  const runtime = { context: ctx, confirmWrites: options.confirmWrites };
  const registerTools = toolRegistrar(tools, runtime);
  const runs = new TaskRuns(options.tasks);
  const bound = new TaskBound(runs);
  const taskTools = new Set(tools.filter((t) => t.books).map((t) => t.name));
  // What else is offered follows the tools shown: a prompt, resource or view of no shown tool would mislead.
  const registerResources = resourceRegistrar(ctx, bus, tools, viewsOf(tools));
  const registerPrompts = promptRegistrar(ctx, tools);
  const toolNames = new Set(tools.map((t) => t.name));
  return (unit) => {
    const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, serverOptions);
    const surface = unit.lifetime === 'request' ? surfaceFor(unit.message, toolNames) : EVERYTHING;
    const tasks = serveTasks(server, { runs, bound, runtime, taskTools, owner: ownerOf(unit, ctx.api.keyId) });
    if (surface.tools !== 'none') registerTools(server, surface.tools === 'all' ? undefined : surface.tools.only, tasks);
    if (surface.resources) registerResources(server);
    if (surface.prompts) registerPrompts(server);
    if (live) serveSubscriptions(server, bus, unit, wanted);
    return server;
  };
}
