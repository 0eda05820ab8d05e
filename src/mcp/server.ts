// Builds the MCP server: one factory makes an instance per connection (stdio) or per request (HTTP),
// all sharing the same client (session, pacing, cache) passed in.
import { McpServer } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import { registerPrompts } from './prompts.js';
import { registerTools } from './register-tools.js';
import { registerResources } from './resources.js';
import { selectTools, type ToolSelection } from './select-tools.js';
import { loadToolManifest } from './tool-manifest.js';

export const SERVER_NAME = 'invoicing-mcp';
export const SERVER_VERSION = '0.1.0';

export interface ServerOptions {
  selection: ToolSelection;
  confirmWrites: boolean;
}

const INSTRUCTIONS =
  'Books of one business on the Invoicing Service: customers, invoices, quotes, payments, products and stock. ' +
  'Amounts are exact decimal strings in the record\'s currency. Lists are oldest first and paged (per_page up to 100). ' +
  'Creates make customers and DRAFT invoices only; a person in the business reviews and sends every invoice.';

export async function createServerFactory(ctx: ToolContext, options: ServerOptions): Promise<() => McpServer> {
  const tools = selectTools(await loadToolManifest(), options.selection);
  return () => {
    const server = new McpServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      { instructions: INSTRUCTIONS },
    );
    registerTools(server, tools, { context: ctx, confirmWrites: options.confirmWrites });
    registerResources(server, ctx);
    registerPrompts(server, ctx);
    return server;
  };
}
