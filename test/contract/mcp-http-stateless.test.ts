// Contract: over HTTP a 2026-07-28 request is served statelessly by an instance of its own, and that
// instance is cheap: the prompts' argument schemas (with their completions) are built once per process,
// on the first request that needs them, never again, however many requests follow. Each request still
// answers from its own data: the invoice it names, the customers its completion asks for.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { DEFAULT_MAX_SESSIONS } from '../../src/cli/http-limit-flags.js';
import { createEventBus } from '../../src/events/bus.js';
import { DEFAULT_HTTP_LIMITS } from '../../src/http/limits.js';
import { promptSchemaBuilds } from '../../src/mcp/prompts.js';
import { createServerFactory } from '../../src/mcp/server.js';
import { type HttpServer, serveHttp } from '../../src/transports/serve-http.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { compiledOnceV2 } from '../support/schema-validators.js';

let sb: TestSandbox;
let api: ApiClient;
let server: HttpServer;
let client: Client;
/** The process's count before this file's server: test files share a worker, and with it the count. */
let buildsBefore: number;

/** The sandbox's own answer, read over its raw HTTP API with a session of the test's own. */
async function raw(path: string): Promise<any> {
  const signIn = await fetch(`${sb.baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sb.keys.live),
  });
  const { access_token } = (await signIn.json()) as { access_token: string };
  const res = await fetch(`${sb.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${access_token}`, 'x-service-key': sb.keys.live.key_id },
  });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  buildsBefore = promptSchemaBuilds();
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
  const logs = captureLogs('warn');
  api = makeClient(sb, sb.keys.live, logs);
  const bus = createEventBus({ invalidate: (kind, id) => api.invalidate(kind, id) });
  // Writes shown: the draft_invoice prompt read below is offered only with create_draft_invoice.
  const factory = await createServerFactory(
    { api, logger: logs.logger },
    { selection: { readOnly: false, toolsets: null }, confirmWrites: false, events: { bus, live: false } },
  );
  server = await serveHttp(factory, {
    host: '127.0.0.1',
    port: 0,
    httpToken: null,
    allowedHosts: [],
    allowedOrigins: [],
    limits: DEFAULT_HTTP_LIMITS,
    maxSessions: DEFAULT_MAX_SESSIONS,
    logger: logs.logger,
    events: null,
  });
  client = new Client(
    { name: 'stateless', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      jsonSchemaValidator: compiledOnceV2,
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await api?.close();
  await sb?.close();
});

describe('stateless requests over HTTP', () => {
  it("build the prompts' argument schemas once for 100 requests, and each answers from its own data", async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const first = (await raw('/api/v1/customers?status=active&per_page=1')).data[0] as { name: string };
    const prefix = first.name.slice(0, 3);
    const matching = (await raw(`/api/v1/customers?status=active&per_page=20&search=${encodeURIComponent(prefix)}`)).data as {
      name: string;
    }[];
    const expectedNames = matching.map((c) => c.name).sort();
    expect(expectedNames.length).toBeGreaterThan(1);

    for (let i = 0; i < 25; i++) {
      const id = i + 1;
      const call = await client.callTool({ name: 'get_invoice', arguments: { id } });
      expect(call.isError).toBeFalsy();
      expect((call.structuredContent as { id: number }).id).toBe(id);

      const { prompts } = await client.listPrompts();
      expect(prompts.find((p) => p.name === 'draft_invoice')?.arguments?.map((a) => a.name)).toEqual(['customer', 'work']);

      const prompt = await client.getPrompt({ name: 'draft_invoice', arguments: { customer: `Customer ${id}`, work: 'two hours' } });
      expect(JSON.stringify(prompt.messages)).toContain(`Customer ${id}`);

      const done = await client.complete({
        ref: { type: 'ref/prompt', name: 'draft_invoice' },
        argument: { name: 'customer', value: prefix },
      });
      expect([...done.completion.values].sort()).toEqual(expectedNames);
    }
    expect(promptSchemaBuilds() - buildsBefore).toBe(1);
  });

  it('give an instance only what its request needs, and tell the client the same as ever', async () => {
    // A resource read meets the resources, a listing every tool, an unknown tool the SDK's own refusal.
    const invoice = (await raw('/api/v1/invoices/3')).data;
    const read = await client.readResource({ uri: 'invoicing://invoices/3' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: 3, number: invoice.number, total: invoice.total });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_invoice');
    expect(tools.length).toBeGreaterThan(5);
    const unknown = await client
      .callTool({ name: 'no_such_tool', arguments: {} })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('no_such_tool');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('invoicing://invoices/{id}');
  });
});
