// Serves the SDK's fetch-shaped MCP handler from Node's (req, res) once Fastify has parsed the body.
// The SDK's own adapter (toNodeHandler) turns a parsed body back into text to put in the web Request,
// which the handler then never reads: it takes the parsed body as given. Here the Request carries the
// method, URL and headers only, so a request's JSON is parsed once and never serialized again.
// Requests without a parsed body go through the SDK's adapter unchanged. Sessions (legacy-sessions.ts)
// are served the same way, straight to the SDK's web-standard transport, without its Node adapter's
// copy of every request and response into web streams.
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';

const parsedBodies = new WeakMap<Request, unknown>();

/** The parsed body of a Request this bridge made, so a server factory can see what it will answer. */
export const parsedBodyOf = (request: Request | undefined): unknown => (request ? parsedBodies.get(request) : undefined);

export type NodeMcpHandler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;

function headersOnlyRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // The body is not carried, so neither are the headers that describe it.
    if (value === undefined || name.startsWith(':') || name === 'content-length' || name === 'transfer-encoding') continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const host = req.headers.host ?? 'localhost';
  return new Request(`http://${host}${req.url ?? '/'}`, { method: req.method ?? 'POST', headers, signal });
}

/** Writes a web Response to Node's response, streaming (SSE) bodies with back-pressure until the client leaves. */
async function writeResponse(response: Response, res: ServerResponse, signal: AbortSignal, listening: boolean): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  res.writeHead(response.status, headers);
  if (response.body === null) return void res.end();
  // A GET stream may stay quiet for long: its client learns it is open from the headers alone.
  if (listening) res.flushHeaders();
  // undici keeps a Request's signal (and so its listeners) until the Request itself is collected: the
  // listener is removed once the response is written, so it does not hold this response that long.
  let onAbort = (): void => undefined;
  const gone = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const reader = response.body.getReader();
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), gone.then(() => null)]);
      if (next === null || next.done) break;
      if (!res.write(next.value)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), gone]);
    }
  } catch {
    // The stream failed or the client left: end what was sent.
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (signal.aborted) void reader.cancel().catch(() => undefined);
    res.end();
  }
}

/**
 * Serves one Node request through a fetch-shaped `answer`: the Request it is given carries the method, URL,
 * headers and a signal that fires when the client leaves; the parsed body travels beside it.
 */
export async function serveThroughFetch(req: IncomingMessage, res: ServerResponse, parsedBody: unknown, answer: (request: Request) => Promise<Response>): Promise<void> {
  const abort = new AbortController();
  let finished = false;
  res.once('close', () => {
    if (!finished) abort.abort();
  });
  let response: Response;
  try {
    const request = headersOnlyRequest(req, abort.signal);
    if (parsedBody !== undefined) parsedBodies.set(request, parsedBody);
    response = await answer(request);
  } catch {
    const id = (parsedBody as { id?: unknown } | null | undefined)?.id;
    response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: typeof id === 'string' || typeof id === 'number' ? id : null }, { status: 500 });
  }
  await writeResponse(response, res, abort.signal, req.method === 'GET');
  finished = true;
}

export function nodeHandler(handler: McpHttpHandler): NodeMcpHandler {
  const general = toNodeHandler(handler);
  return async (req, res, parsedBody) => {
    if (parsedBody === undefined || req.method !== 'POST') return general(req, res, parsedBody);
    return serveThroughFetch(req, res, parsedBody, (request) => handler.fetch(request, { parsedBody }));
  };
}
