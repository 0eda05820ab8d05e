// What one HTTP listener will hold for a client: time to send its headers, time to send the whole request,
// idle time between requests, and a cap on open connections. Used by every listener we open (/mcp with
// /webhooks, and the stdio mode's --webhook-port listener), so no socket is held forever by a client that
// sends slowly or not at all. At the cap, a newcomer displaces a connection quiet for a while, or waits
// for a place (connection-table.ts).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ThrottledLog } from '../log/throttle.js';
import { type ClientAddress, stampClient } from './client-address.js';
import { type CapAction, ConnectionTable, type ConnectionTableOptions, DEFAULT_DISPLACE_GRACE_MS } from './connection-table.js';
import { NO_SCHEMA_COMPILERS } from './no-schema-compilers.js';
import { clientOf } from './per-client.js';

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

/** Told when the cap closes a connection: a quiet one to make room, or a newcomer that waited longest. */
export type AtCapacity = (action: CapAction) => void;

/** An HTTP server for fastify's `serverFactory`, with the limits applied; `table`: whose requests are, or the cap's timing (tests). */
export function createLimitedServer(
  handler: RequestListener,
  limits: HttpLimits,
  atCapacity?: AtCapacity,
  table: Partial<ConnectionTableOptions> = {},
): Server {
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
  const connections = new ConnectionTable(
    {
      max: limits.maxConnections,
      maxWaiting: limits.maxConnections * 2,
      maxWaitMs: limits.headersTimeoutMs,
      requestTimeoutMs: limits.requestTimeoutMs,
      graceMs: DEFAULT_DISPLACE_GRACE_MS,
      hintMs: Math.min(3_000, limits.idleTimeoutMs),
      tickMs: DEFAULT_DISPLACE_GRACE_MS / 4,
      now: Date.now,
      ...table,
    },
    atCapacity,
  );
  // Every connection arrives unread (pauseOnConnect) and reaches the HTTP server only once it has a place:
  // a socket the HTTP server knows it reads, paused or not.
  (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'connection') return emit(event, ...args);
    const socket = args[0] as Socket;
    connections.connected(socket, () => {
      emit('connection', socket);
      socket.resume();
    });
    return true;
  }) as Server['emit'];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => connections.requestStarted(req, res));
  // Closing waits for every connection the listener accepted, the waiting ones too: they go at once.
  const close = server.close.bind(server);
  server.close = ((callback?: (err?: Error) => void) => {
    connections.dropWaiting();
    return close(callback);
  }) as Server['close'];
  return server;
}

/** Statuses after which the connection is closed: the client is refused, its unread body not wanted. */
export const CLOSING_STATUSES: ReadonlySet<number> = new Set([401, 403, 413]);

export interface LimitedAppOptions {
  limits: HttpLimits;
  bodyLimit: number;
  log: ThrottledLog;
  /** Who each request comes from (behind trusted proxies, the forwarded address); the socket's when unset. */
  clientAddress?: ClientAddress | undefined;
}

function capacityLog({ limits, log }: LimitedAppOptions): AtCapacity {
  return (action) =>
    log(
      `http-cap-${action}`,
      'warn',
      { maxConnections: limits.maxConnections },
      action === 'displaced'
        ? `HTTP connection cap (${limits.maxConnections}) reached: closed a connection whose request had stalled, or idle past the short keep-alive it was told, of the client holding the most`
        : `HTTP connection cap (${limits.maxConnections}) reached with every connection in use and twice as many waiting: closed the one waiting longest`,
    );
}

/** A fastify app on a limited server that closes the connection after a refusal. */
export async function limitedFastify(options: LimitedAppOptions): Promise<FastifyInstance> {
  const { default: fastify } = await import('fastify');
  // The app's own logger stays off: fastify's request logs would carry the headers.
  const app = fastify({
    logger: false,
    schemaController: NO_SCHEMA_COMPILERS,
    bodyLimit: options.bodyLimit,
    serverFactory: (handler) => {
      const clientAddress = options.clientAddress;
      // Stamped before anything reads it: the connection cap, the per-client shares, the sign-in limits.
      const stamping: RequestListener = clientAddress
        ? (req, res) => {
            stampClient(req, clientAddress(req));
            handler(req, res);
          }
        : handler;
      return createLimitedServer(
        stamping,
        options.limits,
        capacityLog(options),
        // Behind trusted proxies each request is counted as its client's; otherwise as its socket's, as it connected.
        clientAddress ? { clientOf } : {},
      );
    },
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (CLOSING_STATUSES.has(reply.statusCode)) reply.header('connection', 'close');
    return payload;
  });
  return app;
}
