// The built server as it ships (`node dist/bin/invoicing-mcp.mjs`) spawned over stdio with no keys, so it
// runs on its embedded sandbox, behind the real SDK client: what a desktop MCP client sees.
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { compiledOnceV2 } from './schema-validators.js';

export const CLI = new URL('../../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;

export async function connectBuiltServer(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    // The SDK's safe defaults (PATH, HOME, ...): never SVC_* from the developer's shell.
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'invoicing-mcp-tests', version: '0.0.0' }, { jsonSchemaValidator: compiledOnceV2 });
  await client.connect(transport);
  return client;
}
