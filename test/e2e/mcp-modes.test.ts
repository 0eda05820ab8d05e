// --read-only and --toolsets (and their INVOICING_MCP_* variables) change what the server offers: the
// tools list shows only the chosen tools, and a tool left out cannot be called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { ALL_TOOLS } from './support/expect.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const file = sandboxForFile();

const names = async (c: Connected): Promise<string[]> => (await c.client.listTools()).tools.map((t) => t.name).sort();

/** Calling a tool the server does not offer fails: a tool error or a protocol error, whose text it returns. */
async function refusedCall(c: Connected, name: string, args: Record<string, unknown>): Promise<string> {
  let result: Awaited<ReturnType<Connected['client']['callTool']>>;
  try {
    result = await c.client.callTool({ name, arguments: args });
  } catch (err) {
    return String(err);
  }
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result);
}

describe('--read-only (v2 over stdio)', () => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient('v2', { linked: await stdioHere(['--read-only'], file.env) });
  });
  afterAll(() => c?.close());

  it('lists every tool but the creates', async () => {
    expect(await names(c)).toEqual(ALL_TOOLS.filter((n) => !n.startsWith('create_')).sort());
  });

  it('marks every listed tool read-only', async () => {
    const { tools } = await c.client.listTools();
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('refuses a create and still serves reads', async () => {
    expect(await refusedCall(c, 'create_customer', { name: 'Nope Ltd' })).toMatch(/create_customer.*not found/i);
    const read = await c.client.callTool({ name: 'get_customer', arguments: { id: 1 } });
    expect(read.isError, textOf(read)).toBeFalsy();
  });
});

describe('--toolsets invoices,products (v1 over HTTP)', () => {
  let server: HttpServer;
  let c: Connected;
  beforeAll(async () => {
    server = await spawnHttpServer(['--toolsets', 'invoices,products'], file.env);
    c = await connectClient('v1', { http: server.url });
  });
  afterAll(async () => {
    await c?.close();
    await server?.close();
  });

  it('lists check_connection and the invoice and product tools (and their answers) only', async () => {
    expect(await names(c)).toEqual([
      'check_connection',
      'create_draft_invoice',
      'get_invoice',
      'get_product',
      'list_invoices',
      'list_products',
      'report_low_stock',
      'report_owed',
      'report_sales',
    ]);
  });

  it('refuses a tool of another toolset', async () => {
    expect(await refusedCall(c, 'list_customers', {})).toMatch(/list_customers.*not found/i);
  });
});

describe('INVOICING_MCP_TOOLSETS=customers with INVOICING_MCP_READ_ONLY=1 (v1 over stdio)', () => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient('v1', {
      linked: await stdioHere([], { ...file.env, INVOICING_MCP_TOOLSETS: 'customers', INVOICING_MCP_READ_ONLY: '1' }),
    });
  });
  afterAll(() => c?.close());

  it('lists the customer reads, their answers and check_connection', async () => {
    expect(await names(c)).toEqual(['check_connection', 'find_records', 'get_customer', 'list_customers', 'report_customer']);
  });
});
