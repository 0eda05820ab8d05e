// Builds the MCP server: one factory makes an instance per connection (stdio, a 2025-era HTTP session) or
// per request (stateless HTTP), all sharing the same client (session, pacing, cache) and event bus.
import { McpServer } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { EventBus } from '../events/bus.js';
import { registerPrompts } from './prompts.js';
import { registerTools } from './register-tools.js';
import { registerResources } from './resources.js';
import { selectTools, type ToolSelection } from './select-tools.js';
import type { ServingUnit } from './serving-unit.js';
import { serveSubscriptions } from './subscriptions.js';
import { loadToolManifest } from './tool-manifest.js';

export type { ServingUnit };

export const SERVER_NAME = 'invoicing-mcp';
export const SERVER_VERSION = '0.1.0';

export interface ServerOptions {
  selection: ToolSelection;
  confirmWrites: boolean;
  /** Where events arrive; subscriptions are offered only when something feeds it (webhooks or the poller). */
  events: { bus: EventBus; live: boolean };
}

export type ServerFactory = (unit: ServingUnit) => McpServer;

const INSTRUCTIONS =
  'Books of one business on the Invoicing Service: customers, invoices, quotes, payments, products and stock. ' +
  'Amounts are exact decimal strings in the record\'s currency. Lists are oldest first and paged (per_page up to 100). ' +
  'Creates make customers and DRAFT invoices only; a person in the business reviews and sends every invoice.';

export async function createServerFactory(ctx: ToolContext, options: ServerOptions): Promise<ServerFactory> {
  const tools = selectTools(await loadToolManifest(), { ...options.selection, books: ctx.books != null });
  const { bus, live } = options.events;
  return (unit) => {
    const server = new McpServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      { instructions: INSTRUCTIONS, ...(live ? { capabilities: { resources: { subscribe: true } } } : {}) },
    );
    registerTools(server, tools, { context: ctx, confirmWrites: options.confirmWrites });
    registerResources(server, ctx, bus);
    registerPrompts(server, ctx);
    if (live) serveSubscriptions(server, bus, unit);
    return server;
  };
}
