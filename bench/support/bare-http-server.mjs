// The yardstick for HTTP mode: a bare SDK v2 server over Streamable HTTP on node:http, written the way
// the SDK's own examples write one. One tool, get_invoice, makes the same service call ours makes
// (GET /api/v1/invoices/{id} with the key's session, through Node's fetch) and answers with the record.
// 2026-07-28 requests are served by createMcpHandler from a per-request factory; a 2025-era client that
// opens with `initialize` gets a session (a transport per session id, the SDK's sessionful idiom).
// Reads SVC_BASE_URL, SVC_KEY_ID and SVC_SECRET; prints {"url", "pid"} on stdout once listening.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const base = process.env.SVC_BASE_URL;
const key = { key_id: process.env.SVC_KEY_ID, secret: process.env.SVC_SECRET };
const signIn = await fetch(`${base}/api/v1/auth/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify(key),
});
if (signIn.status !== 201) throw new Error(`sign-in failed: ${signIn.status}`);
const serviceHeaders = {
  authorization: `Bearer ${(await signIn.json()).access_token}`,
  'x-service-key': key.key_id,
  accept: 'application/json',
};

function buildServer() {
  const server = new McpServer({ name: 'bare', version: '1.0.0' });
  server.registerTool(
    'get_invoice',
    { description: 'One invoice by id', inputSchema: z.object({ id: z.number().int().positive() }) },
    async ({ id }) => {
      const res = await fetch(`${base}/api/v1/invoices/${id}`, { headers: serviceHeaders });
      const invoice = await res.json();
      if (res.status !== 200) return { isError: true, content: [{ type: 'text', text: `service answered ${res.status}` }] };
      return { content: [{ type: 'text', text: JSON.stringify(invoice) }], structuredContent: invoice };
    },
  );
  return server;
}

const stateless = toNodeHandler(createMcpHandler(() => buildServer()));
const sessions = new Map();

async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : undefined;
}

async function sessionful(req, res, body) {
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string') {
    const transport = sessions.get(id);
    if (!transport) return res.writeHead(404).end();
    return transport.handleRequest(req, res, body);
  }
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
    onsessionclosed: (sid) => void sessions.delete(sid),
  });
  await buildServer().connect(transport);
  return transport.handleRequest(req, res, body);
}

const http = createServer(async (req, res) => {
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  if (req.headers['mcp-session-id'] !== undefined || isInitializeRequest(body)) return sessionful(req, res, body);
  return stateless(req, res, body);
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${http.address().port}/mcp`, pid: process.pid })}\n`);
});
process.once('SIGTERM', () => process.exit(0));
