// What one HTTP listener will hold for a client: time to send its headers, time to send the whole request,
// idle time between requests, and a cap on open connections. Used by every listener we open (/mcp with
// /webhooks, and the stdio mode's --webhook-port listener), so no socket is held forever by a client that
// sends slowly or not at all. At the cap, a new connection displaces the oldest one that is still sending
// its request or sitting idle; a connection whose request has fully arrived (a call being answered, a
// notification stream) is never displaced, and when every one is such, the newcomer is closed instead.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ThrottledLog } from '../log/throttle.js';

export interface HttpLimits {
  /** Time allowed for the request line and headers, from the connection's start or previous response. */
  headersTimeoutMs: number;
  /** Time allowed for the whole request, headers and body. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between requests. */
  idleTimeoutMs: number;
  /** Open connections at most. */
  maxConnections: number;
}

/** Figures a slow mobile client still passes (a 1 MiB body at 40 KB/s takes about 26 s). */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 30_000,
  maxConnections: 512,
};

/** What one client may hold of 2025-era sessions and notification streams, and for how long. */
export interface SessionLimits {
  /** Sessions one client address may hold. */
  maxSessionsPerClient: number;
  /** Open notification streams (GET streams and subscriptions/listen) one client address may hold. */
  maxStreamsPerClient: number;
  /** A session with no request in flight and no open stream ends after this long. */
  sessionIdleMs: number;
  /** A notification stream ends after this long, with a retry hint. */
  streamLifetimeMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessionsPerClient: 500,
  maxStreamsPerClient: 128,
  sessionIdleMs: 60_000,
  streamLifetimeMs: 600_000,
};

/** How long a stopping server waits for the calls in flight. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** A request body larger than this gets 413. */
export const MCP_BODY_LIMIT = 1024 * 1024;

/** Sockets, oldest first, and the request each is in. */
class ConnectionTable {
  private readonly open = new Map<Socket, IncomingMessage | null>();

  constructor(private readonly max: number) {}

  /** Takes a new connection in; returns the socket to close (another, or this one), or null. */
  admit(socket: Socket): Socket | null {
    let victim: Socket | null = null;
    if (this.open.size >= this.max) {
      victim = this.displaceable() ?? socket;
      if (victim === socket) return socket;
      this.open.delete(victim);
    }
    this.open.set(socket, null);
    socket.once('close', () => this.open.delete(socket));
    return victim;
  }

  requestStarted(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    if (!this.open.has(socket)) return;
    this.open.set(socket, req);
    res.once('finish', () => {
      if (this.open.get(socket) === req) this.open.set(socket, null);
    });
  }

  /** The oldest connection not serving a fully received request. */
  private displaceable(): Socket | null {
    for (const [socket, req] of this.open) if (req === null || !req.complete) return socket;
    return null;
  }
}

/** Told when the cap closes a connection: another one to make room, or the newcomer when none can go. */
export type AtCapacity = (closed: 'oldest' | 'newcomer') => void;

/** An HTTP server for fastify's `serverFactory`, with the limits applied. */
export function createLimitedServer(handler: RequestListener, limits: HttpLimits, atCapacity?: AtCapacity): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.idleTimeoutMs,
      // How often Node checks the two timeouts above: often enough that a short one is kept to.
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    handler,
  );
  const table = new ConnectionTable(limits.maxConnections);
  server.on('connection', (socket: Socket) => {
    const closing = table.admit(socket);
    if (!closing) return;
    closing.destroy();
    atCapacity?.(closing === socket ? 'newcomer' : 'oldest');
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => table.requestStarted(req, res));
  return server;
}

/** Statuses after which the connection is closed: the client is refused, its unread body not wanted. */
export const CLOSING_STATUSES: ReadonlySet<number> = new Set([401, 403, 413]);

export interface LimitedAppOptions {
  limits: HttpLimits;
  bodyLimit: number;
  log: ThrottledLog;
}

function capacityLog({ limits, log }: LimitedAppOptions): AtCapacity {
  return (closed) =>
    log(
      `http-cap-${closed}`,
      'warn',
      { maxConnections: limits.maxConnections },
      closed === 'oldest'
        ? `HTTP connection cap (${limits.maxConnections}) reached: closed the oldest connection still sending its request or idle`
        : `HTTP connection cap (${limits.maxConnections}) reached with every connection busy: refused a new one`,
    );
}

/** A fastify app on a limited server that closes the connection after a refusal. */
export async function limitedFastify(options: LimitedAppOptions): Promise<FastifyInstance> {
  const { default: fastify } = await import('fastify');
  // The app's own logger stays off: fastify's request logs would carry the headers.
  const app = fastify({
    logger: false,
    bodyLimit: options.bodyLimit,
    serverFactory: (handler) => createLimitedServer(handler, options.limits, capacityLog(options)),
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (CLOSING_STATUSES.has(reply.statusCode)) reply.header('connection', 'close');
    return payload;
  });
  return app;
}
