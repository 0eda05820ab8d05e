// Every tool through both SDK clients, over stdio and over HTTP, in test mode: the negotiated version, the
// exact tools list, a successful call of every tool, and a test-key draft that is shown but not saved. The
// HTTP server, which both clients share, runs on its embedded sandbox; the stdio servers, one a client, on
// the test key of one sandbox of the file's (the same sample books), so that they do not start three more.
// The v2 client over stdio connects as the SDK ships: it asks server/discover of a sibling process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, EXPECTED_VERSION, type Sdk, textOf } from './support/clients.js';
import { ALL_TOOLS, DRAFT, TOOL_CALLS } from './support/expect.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServer, spawnHttpServer, stdioCommand } from './support/server.js';

const file = sandboxForFile();
let http: HttpServer;
beforeAll(async () => {
  http = await spawnHttpServer();
});
afterAll(() => http?.close());

const cases: { sdk: Sdk; via: 'stdio' | 'http' }[] = [
  { sdk: 'v2', via: 'stdio' },
  { sdk: 'v1', via: 'stdio' },
  { sdk: 'v2', via: 'http' },
  { sdk: 'v1', via: 'http' },
];

describe.each(cases)('the $sdk client over $via', ({ sdk, via }) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient(sdk, via === 'stdio' ? { stdio: stdioCommand([], file.env) } : { http: http.url });
  });
  afterAll(() => c?.close());

  it(`negotiates ${EXPECTED_VERSION[sdk]}`, () => {
    expect(c.protocolVersion).toBe(EXPECTED_VERSION[sdk]);
  });

  it('lists exactly every tool of the registry', async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...ALL_TOOLS].sort());
  });

  it('calls every tool successfully on the sandbox', async () => {
    for (const [name, args, expected] of TOOL_CALLS) {
      const result = await c.client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      expect(result.structuredContent, name).toMatchObject(expected);
      expect(textOf(result), name).not.toBe('');
    }
  });

  it('drafts an invoice with the test key: shown with its total, but not saved', async () => {
    const created = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ status: 'draft', customer: { id: 1 }, subtotal: '50.00' });
    expect(textOf(created)).toMatch(
      /^Not saved: this is a test key, which validates a create and shows it as it would be; no record was made\./,
    );
    const read = await c.client.callTool({ name: 'get_invoice', arguments: { id: created.structuredContent.id } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toContain(`no invoice with id ${created.structuredContent.id}`);
  });

  it('saw nothing but protocol on the way', () => {
    expect(c.errors).toEqual([]);
  });
});
