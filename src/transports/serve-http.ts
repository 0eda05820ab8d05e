// Streamable HTTP at /mcp, serving both protocol eras: 2026-07-28 requests statelessly (subscriptions
// ride their subscriptions/listen streams, fed from the event bus through the handler's notifier), and
// 2025-era clients statelessly too unless they open with `initialize`, which gives them a session (see
// legacy-sessions.ts). Bound to 127.0.0.1 by default with Host and Origin checks (host-guard.ts); a bearer
// token when one is set (required beyond loopback), checked before any body is read. Every connection is
// held to the limits of http/limits.ts; refusals are JSON-RPC errors (http/json-rpc-errors.ts). /healthz and
// /readyz answer without the token (http/health.ts), and drain() stops it gently (http/drain.ts).

import { createHash, timingSafeEqual } from 'node:crypto';
import { type AuthInfo, createMcpHandler, isJsonContentType } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EventBus } from '../events/bus.js';
import { clientAddressOf, fromTrustedProxy } from '../http/client-address.js';
import { Drain } from '../http/drain.js';
import { HEALTH_PATHS, type ReadinessProbe, registerHealthRoutes } from '../http/health.js';
import { hostGuardHook } from '../http/host-guard.js';
import { boundedJsonParser } from '../http/json-body.js';
import { PARSE_ERROR, rpcError, rpcErrorHandler } from '../http/json-rpc-errors.js';
import { DEFAULT_SESSION_LIMITS, type HttpLimits, limitedFastify, MCP_BODY_LIMIT, type SessionLimits } from '../http/limits.js';
import { PerClient } from '../http/per-client.js';
import type { LogSink } from '../log/deferred-logger.js';
import { throttledLog } from '../log/throttle.js';
import type { ServerFactory } from '../mcp/server.js';
import { type EventFeed, FeedHandlers } from './feed-handlers.js';
import { LegacySessions } from './legacy-sessions.js';
import { parsedBodyOf } from './node-bridge.js';
import { reportingFactory, sdkErrorReporter } from './sdk-errors.js';

export interface HttpServeOptions {
  host: string;
  port: number;
  httpToken: string | null;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /**
   * Proxies whose X-Forwarded-For names the client, for every per-client limit (none: the socket's address),
   * and whose forwarded host is checked against `publicOrigin`.
   */
  trustProxy?: readonly string[] | undefined;
  /** Hosted mode: the origin people reach the server at (--public-url's), the one host a trusted proxy may forward. */
  publicOrigin?: string | undefined;
  limits: HttpLimits;
  /** Legacy (2025-era) sessions open at most. */
  maxSessions: number;
  /** Per-client shares, the session idle timeout and the stream lifetime (defaults when unset). */
  sessionLimits?: SessionLimits | undefined;
  /** What /readyz reports besides draining; ready when unset. */
  readiness?: ReadinessProbe | undefined;
  logger: LogSink;
  /** Events to publish to 2026-07-28 subscription streams; null when nothing feeds the bus. */
  events: EventBus | null;
  /** Starts what feeds `events` (the books mirror and its LISTEN); resolves before a subscriptions/listen is acknowledged. */
  eventsWanted?: (() => Promise<void>) | undefined;
  /**
   * Hosted mode: the resource server. Checks each /mcp request's bearer token before any body is read,
   * answering a refusal itself; what it finds is passed to the server factory (`unit.auth`).
   */
  resourceServer?: ResourceServer | undefined;
  /** Adds routes of its own (the webhook receiver) before the server listens. */
  extraRoutes?: ((app: FastifyInstance) => Promise<void> | void) | undefined;
}

export interface ResourceServer {
  /** The token's AuthInfo, or the refusal already sent (401 or 403 with its WWW-Authenticate challenge). */
  check(request: FastifyRequest, reply: FastifyReply): Promise<AuthInfo | null>;
  /** Its routes (metadata, the authorization server, the sign-in page), added before the server listens. */
  routes(app: FastifyInstance): Promise<void> | void;
  /** The events of the books a checked token reaches (its tenant's), or null when it offers no subscriptions. */
  eventsOf(auth: AuthInfo): EventFeed | null;
}

export interface HttpServer {
  url: string;
  app: FastifyInstance;
  /**
   * Stops taking requests (503), ends open streams with a retry hint and waits for the calls in flight, at
   * most `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<void>;
  /**
   * Stops serving: the sessions end and every connection is closed at once. After drain() the calls in flight
   * are done (or their time is up), so what is left are kept-alive connections, which would otherwise hold the
   * close up until each client dropped its own (a few seconds for Node's fetch, a minute for a browser).
   */
  close(): Promise<void>;
}

/** How long a client whose stream was ended is asked to wait before it opens one again. */
const STREAM_RETRY_MS = 1_000;
const READY: ReadinessProbe = async () => ({ ready: true, detail: {} });

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

const TOKEN_HELP =
  'This server takes the static bearer token it was started with (--http-token or INVOICING_MCP_HTTP_TOKEN), not OAuth: send Authorization: Bearer <token>.';

/**
 * The challenge names the realm and, per RFC 6750, the error with our words, and no `resource_metadata`:
 * there is no authorization server to discover. (A client with an OAuth provider, such as the Inspector,
 * still tries OAuth on any 401 and finds none; it should be given the token as a header instead.)
 */
function challenge(given: boolean): string {
  const error = given ? 'error="invalid_token", ' : '';
  return `Bearer realm="invoicing-mcp", ${error}error_description="${TOKEN_HELP.replace(/"/g, "'")}"`;
}

function bearerCheck(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1] as string), expected)) return;
    const given = request.headers.authorization !== undefined;
    await reply
      .code(401)
      .header('www-authenticate', challenge(given))
      .send({
        error: given ? 'invalid_token' : 'unauthorized',
        message: given ? `The bearer token is not the one this server was started with. ${TOKEN_HELP}` : TOKEN_HELP,
      });
  };
}

const isListen = (body: unknown): boolean => (body as { method?: unknown } | null)?.method === 'subscriptions/listen';

/** Every request past the drain and the Host and Origin checks (health checks aside), and counted until answered. */
function guardRequests(app: FastifyInstance, drain: Drain, options: HttpServeOptions): void {
  const guardHost = hostGuardHook({ ...options, fromTrustedProxy: fromTrustedProxy(options.trustProxy ?? []) });
  app.addHook('onRequest', async (request, reply) => {
    // A load balancer's health checks are answered while draining, and name the address they reach, whatever
    // --allowed-hosts says.
    const health = HEALTH_PATHS.has(request.url.split('?')[0] ?? request.url);
    if (drain.draining && !health) return drain.refuse(reply);
    // Every request taken in is answered before the process stops (a call, a sign-in, an OAuth endpoint, a
    // webhook delivery), counted from its arrival so that one whose body is still coming is not cut off; an
    // MCP stream is not waited for (a GET, or a listen once its body says so).
    if (request.routeOptions.url !== '/mcp' || request.method !== 'GET') drain.track(reply.raw);
    if (!health) await guardHost(request, reply);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (drain.draining) reply.header('connection', 'close');
    return payload;
  });
}

/** The check /mcp requests pass first: the static token, or the resource server's (whose AuthInfo is kept in `authOf`). */
function mcpGuard(options: HttpServeOptions, authOf: WeakMap<FastifyRequest, AuthInfo>) {
  const resourceServer = options.resourceServer;
  if (options.httpToken) return { onRequest: bearerCheck(options.httpToken) };
  if (!resourceServer) return {};
  return {
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      const auth = await resourceServer.check(request, reply);
      if (auth) authOf.set(request, auth);
    },
  };
}

/** The stateless handlers (one per event bus) and the legacy sessions, sharing one count of streams per client. */
function mcpHandlers(instance: ServerFactory, options: HttpServeOptions, report: (err: Error) => void) {
  const limits = options.sessionLimits ?? DEFAULT_SESSION_LIMITS;
  const streams = new PerClient(limits.maxStreamsPerClient);
  // One handler per bus: hosted mode's tenants each have theirs, so a stream hears only its own books.
  const handlers = new FeedHandlers(
    () =>
      createMcpHandler(
        (ctx) => instance({ era: ctx.era, lifetime: 'request', message: parsedBodyOf(ctx.requestInfo), auth: ctx.authInfo }),
        { onerror: report },
      ),
    { streams, lifetimeMs: limits.streamLifetimeMs, retryMs: STREAM_RETRY_MS },
  );
  const sessions = new LegacySessions(instance, {
    maxSessions: options.maxSessions,
    maxSessionsPerClient: limits.maxSessionsPerClient,
    idleMs: limits.sessionIdleMs,
    streams,
    streamLifetimeMs: limits.streamLifetimeMs,
    retryMs: STREAM_RETRY_MS,
  });
  handlers.for(options.events);
  return { handlers, sessions };
}

async function listenedUrl(app: FastifyInstance, options: HttpServeOptions): Promise<string> {
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : options.port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `http://${hostPart}:${port}/mcp`;
}

export async function serveHttp(factory: ServerFactory, options: HttpServeOptions): Promise<HttpServer> {
  const report = sdkErrorReporter(options.logger);
  const app = await limitedFastify({
    limits: options.limits,
    bodyLimit: MCP_BODY_LIMIT,
    log: throttledLog(options.logger),
    // With no proxy trusted, the socket's address is read where it is needed.
    clientAddress: options.trustProxy?.length ? clientAddressOf(options.trustProxy) : undefined,
  });
  const drain = new Drain();
  guardRequests(app, drain, options);
  app.setErrorHandler(rpcErrorHandler(report));
  boundedJsonParser(app, report);
  registerHealthRoutes(app, options.readiness ?? READY, () => drain.draining);
  // The token guards /mcp only: the service's webhooks prove themselves with their signature.
  const authOf = new WeakMap<FastifyRequest, AuthInfo>();
  const resourceServer = options.resourceServer;
  const { handlers, sessions } = mcpHandlers(reportingFactory(factory, report), options, report);
  app.all('/mcp', mcpGuard(options, authOf), async (request, reply) => {
    if (request.method === 'POST' && request.body === undefined && isJsonContentType(request.headers['content-type'] ?? null)) {
      return reply.code(400).send(rpcError(PARSE_ERROR, 'Parse error: the body is empty'));
    }
    if (isListen(request.body)) drain.untrack(reply.raw);
    const auth = authOf.get(request);
    const feed = auth && resourceServer ? resourceServer.eventsOf(auth) : null;
    if (!sessions.claims(request.headers, request.method, request.body)) {
      // The feed starts before the subscription is acknowledged, so no change after the acknowledgement is missed.
      if (isListen(request.body)) await (feed ? feed.wanted() : options.eventsWanted?.());
      return handlers.for(feed ? feed.bus : options.events)(request.raw, reply.raw, request.body, auth);
    }
    reply.hijack();
    await sessions.handle(request.raw, reply.raw, request.body, auth);
  });
  await resourceServer?.routes(app);
  await options.extraRoutes?.(app);
  return {
    url: await listenedUrl(app, options),
    app,
    drain: async (timeoutMs) => {
      const settled = drain.drain(timeoutMs);
      sessions.endStreams();
      handlers.endStreams();
      await settled;
    },
    close: async () => {
      await sessions.close();
      await handlers.close();
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
