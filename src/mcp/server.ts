// Builds the MCP server: one factory makes an instance per connection (stdio, a 2025-era HTTP session) or
// per request (stateless HTTP), all sharing the same client (session, pacing, cache) and event bus.
import { McpServer } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { EventBus } from '../events/bus.js';
import { type Businesses, soleBusiness } from './businesses.js';
import type { KeyScopes } from './key-scopes.js';
import { type OfferHandles, recordOffers, withdrawBeyond } from './offer-handles.js';
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
   * For one business given as its context; several businesses carry their own.
   */
  events?: { bus: EventBus; live: boolean; wanted?: (() => Promise<void>) | undefined };
  /** How long answers wait before they become tasks, and how tasks are kept (MCP Tasks; defaults otherwise). */
  tasks?: TaskRunsOptions;
  /** The keys' scopes once their sessions say (stdio and --http): what they cannot use is no longer offered. */
  keyScopes?: KeyScopes;
}

/**
 * Whose a task is: the grant of a hosted request; else the one user of a server on its keys, whichever of its
 * processes or connections asks, so that a desktop's tasks outlive a restart on the same mirror (whose file
 * is the key's alone: see store/location.ts).
 */
function ownerOf(unit: ServingUnit, businesses: Businesses): string {
  const grant = unit.auth?.extra?.grantId;
  return typeof grant === 'string' ? `grant:${grant}` : `key:${businesses.units.map((u) => u.context.api.keyId).join(',')}`;
}

export type ServerFactory = (unit: ServingUnit) => McpServer;

const INSTRUCTIONS =
  'Books of one business on the Invoicing Service: customers, invoices, quotes, payments, products and stock. ' +
  "Amounts are exact decimal strings in the record's currency. Lists are oldest first and paged (per_page up to 100). " +
  'Creates make customers and DRAFT invoices only; a person in the business reviews and sends every invoice.';

/** On a server of several, the instructions name them: every call names one, or "all" on the reports. */
function instructionsFor(businesses: Businesses): string {
  if (!businesses.several) return INSTRUCTIONS;
  const names = businesses.units.map((u) => u.name).join(', ');
  return (
    `${INSTRUCTIONS.replace('Books of one business', 'Books of several businesses')} ` +
    `Businesses: ${names}. Every call names its business; the reports also take "all" (each business's own figures, never added together).`
  );
}

/**
 * The factory. Everything that does not depend on the serving unit (the tools' schemas, the resource
 * templates and readers, the prompts' argument schemas and completions) is built once, on the first
 * instance (start-up stays lazy), and shared; an instance that answers one request gets only what that
 * request needs (request-surface.ts). Instances themselves are never reused: the SDK refuses an instance
 * still serving, and each holds its own client's capabilities, identity and protocol version.
 * `served` is one business's context (its events in `options.events`), or several businesses, each a unit.
 */
export async function createServerFactory(served: ToolContext | Businesses, options: ServerOptions): Promise<ServerFactory> {
  if (!('units' in served) && !options.events) throw new Error("one business's server is made with its events (options.events)");
  const businesses = 'units' in served ? served : soleBusiness(served, options.events as NonNullable<ServerOptions['events']>);
  const withBooks = businesses.units.every((u) => u.context.books != null);
  const manifest = await loadToolManifest();
  const live = businesses.units.some((u) => u.events.live);
  // `logging`: the SDK answers logging/setLevel and filters the notices sent as notifications/message.
  // Tasks for answers that may wait on the service's pace, where there are books to keep them in.
  // listChanged: what a key turns out not to be able to use is withdrawn from a live session (key-scopes.ts).
  const tasks = withBooks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const serverOptions = {
    instructions: instructionsFor(businesses),
    capabilities: {
      logging: {},
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, ...(live ? { subscribe: true } : {}) },
      ...tasks,
    },
  };
  const runs = new TaskRuns(options.tasks);
  const bound = new TaskBound(runs);
  const offers = new Map<string, Offer>();
  const offerFor = (scopes: readonly string[] | null): Offer => {
    const key = scopes === null ? '' : ` ${[...scopes].sort().join(' ')}`;
    let offer = offers.get(key);
    // Hosted mode's selection names its grant's scopes already; it is given no keyScopes.
    const selection = { ...options.selection, books: withBooks, scopes: scopes ?? options.selection.scopes ?? null };
    if (!offer) offers.set(key, (offer = offerOf(manifest, selection, businesses, options)));
    return offer;
  };
  const keyScopes = options.keyScopes;
  return (unit) => {
    const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, serverOptions);
    const scopes = keyScopes?.known ?? null;
    const offer = offerFor(scopes);
    // A session that outlives the sign-in hears what its key cannot use withdrawn once the scopes are known.
    const handles = keyScopes && scopes === null && unit.lifetime === 'connection' ? recordOffers(server) : null;
    const surface = unit.lifetime === 'request' ? surfaceFor(unit.message, offer.toolNames) : EVERYTHING;
    const taskCalls = serveTasks(server, { runs, bound, businesses, taskTools: offer.taskTools, owner: ownerOf(unit, businesses) });
    if (surface.tools !== 'none') offer.registerTools(server, surface.tools === 'all' ? undefined : surface.tools.only, taskCalls);
    if (surface.resources) offer.registerResources(server);
    if (surface.prompts) offer.registerPrompts(server);
    if (live) serveSubscriptions(server, businesses, unit);
    if (handles && keyScopes) {
      const stop = keyScopes.onKnown((known) => {
        if (server.isConnected()) withdrawBeyond(handles, offerFor(known).names());
      });
      const closed = server.server.onclose;
      server.server.onclose = () => {
        stop();
        closed?.();
      };
    }
    return server;
  };
}

/** What instances of one selection offer: the tools, and the prompts, resources and views they reach. */
interface Offer {
  toolNames: Set<string>;
  taskTools: Set<string>;
  registerTools: ReturnType<typeof toolRegistrar>;
  registerResources: (server: McpServer) => void;
  registerPrompts: (server: McpServer) => void;
  /** The names of what this offer registers (found once, on a server of its own). */
  names(): OfferHandles;
}

function offerOf(
  manifest: Awaited<ReturnType<typeof loadToolManifest>>,
  selection: ToolSelection,
  businesses: Businesses,
  options: ServerOptions,
): Offer {
  const tools = selectTools(manifest, selection);
  // What else is offered follows the tools shown: a prompt, resource or view of no shown tool would mislead.
  const offer: Omit<Offer, 'names'> = {
    toolNames: new Set(tools.map((t) => t.name)),
    taskTools: new Set(tools.filter((t) => t.books).map((t) => t.name)),
    registerTools: toolRegistrar(tools, { businesses, confirmWrites: options.confirmWrites }),
    registerResources: resourceRegistrar(businesses, tools, viewsOf(tools)),
    registerPrompts: promptRegistrar(businesses, tools),
  };
  let names: OfferHandles | null = null;
  return {
    ...offer,
    names: () => {
      if (names) return names;
      const scratch = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION });
      names = recordOffers(scratch);
      offer.registerTools(scratch);
      offer.registerResources(scratch);
      offer.registerPrompts(scratch);
      return names;
    },
  };
}
