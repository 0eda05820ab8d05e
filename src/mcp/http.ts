// Streamable HTTP at /mcp, serving both protocol eras: 2026-07-28 requests statelessly (subscriptions
// ride their subscriptions/listen streams, fed from the event bus through the handler's notifier), and
// 2025-era clients statelessly too unless they open with `initialize`, which gives them a session (see
// legacy-sessions.ts). Bound to 127.0.0.1 by default with Host and Origin checks; a bearer token when one
// is set (required beyond loopback).
import { createMcpFastifyApp, originValidation } from '@modelcontextprotocol/fastify';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../api/url.js';
import type { EventBus } from '../events/bus.js';
import { LegacySessions } from './legacy-sessions.js';
import { nodeHandler, parsedBodyOf } from './node-bridge.js';
import type { ServerFactory } from './server.js';

export interface HttpServeOptions {
  host: string;
  port: number;
  httpToken: string | null;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** Events to publish to 2026-07-28 subscription streams; null when nothing feeds the bus. */
  events: EventBus | null;
  /** Adds routes of its own (the webhook receiver) before the server listens. */
  extraRoutes?: ((app: FastifyInstance) => Promise<void> | void) | undefined;
}

export interface HttpServer {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

function bearerCheck(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1] as string), expected)) return;
    await reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .send({ error: 'unauthorized', message: 'Send Authorization: Bearer <token>, the token this server was started with.' });
  };
}

const LEGACY_SESSIONS = { maxSessions: 1000, idleMs: 30 * 60_000 };

export async function serveHttp(factory: ServerFactory, options: HttpServeOptions): Promise<HttpServer> {
  const loopback = isLoopbackHost(options.host);
  const app = createMcpFastifyApp({
    host: options.host,
    ...(options.allowedHosts.length > 0 ? { allowedHosts: [...options.allowedHosts] } : {}),
    ...(options.allowedOrigins.length > 0 ? { allowedOrigins: [...options.allowedOrigins] } : {}),
  });
  // Beyond loopback the SDK checks no Origin unless told: refuse browsers from anywhere not listed.
  if (!loopback && options.allowedOrigins.length === 0) app.addHook('onRequest', originValidation([]));
  // The token guards /mcp only: the service's webhooks prove themselves with their signature.
  const guard = options.httpToken ? { onRequest: bearerCheck(options.httpToken) } : {};
  const handler = createMcpHandler((ctx) => factory({ era: ctx.era, lifetime: 'request', message: parsedBodyOf(ctx.requestInfo) }));
  const node = nodeHandler(handler);
  const sessions = new LegacySessions(factory, LEGACY_SESSIONS);
  const unlisten = options.events?.listen((_event, uris) => {
    for (const uri of uris) handler.notify.resourceUpdated(uri);
  });
  app.all('/mcp', guard, async (request, reply) => {
    if (!sessions.claims(request.headers, request.method, request.body)) return node(request.raw, reply.raw, request.body);
    reply.hijack();
    await sessions.handle(request.raw, reply.raw, request.body);
  });
  await options.extraRoutes?.(app);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : options.port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/mcp`,
    app,
    close: async () => {
      unlisten?.();
      await sessions.close();
      await handler.close();
      await app.close();
    },
  };
}
