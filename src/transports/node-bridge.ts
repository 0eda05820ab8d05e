// Serves the SDK's fetch-shaped MCP handler from Node's (req, res) once Fastify has parsed the body.
// The SDK's own adapter (toNodeHandler) turns a parsed body back into text to put in the web Request,
// which the handler then never reads: it takes the parsed body as given. Here the Request carries the
// method, URL and headers only, so a request's JSON is parsed once and never serialized again.
// Requests without a parsed body go through the SDK's adapter unchanged.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';
import { REAL_TIMERS } from '../core/timers.js';
import { rpcError } from '../http/json-rpc-errors.js';
import { clientOf, type PerClient, refuseOverShare } from '../http/per-client.js';
import { retryField } from './session-transport.js';

const parsedBodies = new WeakMap<Request, unknown>();

/** The parsed body of a Request this bridge made, so a server factory can see what it will answer. */
export const parsedBodyOf = (request: Request | undefined): unknown => (request ? parsedBodies.get(request) : undefined);

export type NodeMcpHandler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown, auth?: AuthInfo) => Promise<void>;

function headersOnlyRequest(req: IncomingMessage, signal: AbortSignal | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // The body is not carried, so neither are the headers that describe it.
    if (value === undefined || name.startsWith(':') || name === 'content-length' || name === 'transfer-encoding') continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const host = req.headers.host ?? 'localhost';
  return new Request(`http://${host}${req.url ?? '/'}`, { method: req.method ?? 'POST', headers, ...(signal ? { signal } : {}) });
}

/**
 * Writes a web Response to Node's response, streaming (SSE) bodies with back-pressure until the client
 * leaves or the stream is ended here, when `farewell()` gives the last words (a retry hint).
 */
async function writeResponse(response: Response, res: ServerResponse, signal: AbortSignal, farewell = (): string => ''): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  res.writeHead(response.status, headers);
  if (response.body === null) return void res.end();
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
    res.end(farewell());
  }
}

/**
 * Only a subscriptions/listen stream lasts as long as its client listens, so only its Request carries the
 * signal of the client leaving. undici ties a Request's signal to a WeakRef and a FinalizationRegistry,
 * which V8 keeps through every young-generation GC: on every request that promoted its objects to the
 * old generation (some 25 MB more RSS after 20,000 calls). Any other answer is bounded in time, and a
 * client that leaves while it is written still cancels its body (writeResponse), which the SDK takes
 * as the end of the exchange.
 */
const lastsWhileListened = (body: unknown): boolean => (body as { method?: unknown } | null)?.method === 'subscriptions/listen';

/** What a subscriptions/listen stream may hold: its client's share of streams, and a lifetime. */
export interface StreamRules {
  streams?: PerClient | undefined;
  lifetimeMs?: number | undefined;
  retryMs: number;
}

export interface NodeMcpBridge extends NodeMcpHandler {
  /** Ends every open subscriptions/listen stream with a retry hint (the server is stopping). */
  endStreams(): void;
}

const idOf = (body: unknown): string | number | null => {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

export function nodeHandler(handler: McpHttpHandler, rules: StreamRules = { retryMs: 1_000 }): NodeMcpBridge {
  const general = toNodeHandler(handler);
  const open = new Set<() => void>();
  const serve = async (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown, auth?: AuthInfo): Promise<void> => {
    if (parsedBody === undefined || req.method !== 'POST') {
      // The SDK's adapter passes `req.auth` on as the handler's authInfo.
      if (auth) (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
      return general(req, res, parsedBody);
    }
    const abort = new AbortController();
    let finished = false;
    res.once('close', () => {
      if (!finished) abort.abort();
    });
    const listening = lastsWhileListened(parsedBody);
    let ended = false;
    if (listening) {
      const client = clientOf(req);
      if (rules.streams && !rules.streams.take(client)) {
        return refuseOverShare(res, `${rules.streams.max} open streams`, rules.retryMs, idOf(parsedBody));
      }
      const end = (): void => {
        ended = true;
        abort.abort();
      };
      const lifetime = rules.lifetimeMs === undefined ? undefined : REAL_TIMERS.set(end, rules.lifetimeMs, true);
      open.add(end);
      res.once('close', () => {
        REAL_TIMERS.clear(lifetime);
        open.delete(end);
        rules.streams?.give(client);
      });
    }
    let response: Response;
    try {
      const request = headersOnlyRequest(req, listening ? abort.signal : undefined);
      parsedBodies.set(request, parsedBody);
      response = await handler.fetch(request, auth ? { parsedBody, authInfo: auth } : { parsedBody });
    } catch {
      response = Response.json(rpcError(-32603, 'Internal error', idOf(parsedBody)), { status: 500 });
    }
    await writeResponse(response, res, abort.signal, () => (ended ? retryField(rules.retryMs) : ''));
    finished = true;
  };
  return Object.assign(serve, {
    endStreams: () => {
      for (const end of [...open]) end();
    },
  });
}
