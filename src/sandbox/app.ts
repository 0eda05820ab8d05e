// The sandbox's HTTP server: the service's /api routes, the admin interface under /_sandbox, and the
// rules that keep bad input harmless (JSON errors for malformed bodies, 413, 415, 404, 405).
import { createServer } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { NO_SCHEMA_COMPILERS } from '../http/no-schema-compilers.js';
import { registerBusinessAdmin } from './admin/business.js';
import { registerBusinessesAdmin } from './admin/businesses.js';
import { registerKeyAdmin } from './admin/keys.js';
import { registerQuoteAdmin } from './admin/quotes.js';
import { registerSystemAdmin } from './admin/system.js';
import { callState, serviceHeaders } from './call.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerCreateRoutes } from './routes/creates.js';
import { registerReadRoutes } from './routes/lists.js';
import { registerPortalRoute } from './routes/portal.js';
import type { World } from './world.js';

export const BODY_LIMIT = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const isApi = (request: FastifyRequest): boolean => request.url.startsWith('/api/') || request.url === '/api';

function frameworkError(error: FastifyError): { status: number; message: string } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: `The request body is larger than ${BODY_LIMIT} bytes.` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Send the body as JSON with Content-Type: application/json.' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'The body is empty but Content-Type says JSON: send a JSON object or no Content-Type.' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'The Content-Length header does not match the body.' };
    default:
      if (error instanceof SyntaxError || error.statusCode === 400) {
        return { status: 400, message: `The body is not valid JSON: ${error.message}` };
      }
      return { status: error.statusCode && error.statusCode < 500 ? error.statusCode : 500, message: 'The service had an internal error.' };
  }
}

function addMethodNotAllowed(app: FastifyInstance, routes: Map<string, Set<string>>): void {
  for (const [url, methods] of routes) {
    const others = METHODS.filter((m) => !methods.has(m));
    if (others.length === 0) continue;
    const allow = [...methods].join(', ');
    app.route({
      method: others,
      url,
      handler: async (request, reply) => {
        callState(request).error = `Method ${request.method} is not allowed here`;
        reply
          .code(405)
          .header('allow', allow)
          .send({ message: `${request.method} is not allowed on ${url}; use ${allow}.` });
      },
    });
  }
}

function addHooks(app: FastifyInstance, world: World): void {
  app.decorateRequest('call', null);
  app.addHook('onRequest', async (request) => {
    world.keepTime();
    if (isApi(request)) callState(request);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    // The HTTP Date is the service's clock, which the admin interface moves; not the host's.
    reply.header('date', new Date(world.clock.now()).toUTCString());
    if (request.call) {
      reply.headers(serviceHeaders(request.call, world.business(1).profile.timeZone));
      if (reply.statusCode >= 400 && !request.call.error) request.call.error = `HTTP ${reply.statusCode}`;
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const state = request.call;
    if (!state) return;
    world.audit.recordRequest({
      at: world.clock.now(),
      method: request.method,
      path: request.url,
      status: reply.statusCode,
      ms: Math.round(performance.now() - state.startedAt),
      key_id: state.keyId,
      error: reply.statusCode >= 400 ? state.error : null,
    });
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const { status, message } = frameworkError(error);
    if (request.call) request.call.error = message;
    reply.code(status).type('application/json; charset=utf-8').send({ message });
  });
  app.setNotFoundHandler(async (request, reply) => {
    const message = `No route for ${request.method} ${request.url.split('?')[0]}.`;
    if (request.call) request.call.error = message;
    reply.code(404).send({ message });
  });
}

/** How long a client may take to send its headers, and its whole request: then its connection is closed. */
export interface SandboxTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export const SANDBOX_TIMEOUTS: SandboxTimeouts = { headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 };

export function buildApp(world: World, adminToken: string, timeouts: SandboxTimeouts = SANDBOX_TIMEOUTS): FastifyInstance {
  const app = Fastify({
    // A client that sends slowly (or not at all) is cut off in bounded time, checked often enough to keep to it.
    serverFactory: (handler) =>
      createServer(
        {
          headersTimeout: timeouts.headersTimeoutMs,
          requestTimeout: timeouts.requestTimeoutMs,
          connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 4))),
        },
        handler,
      ),
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    logger: false,
    return503OnClosing: false,
    schemaController: NO_SCHEMA_COMPILERS,
  });
  app.removeContentTypeParser('text/plain');
  const routes = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = routes.get(route.url) ?? new Set<string>();
    for (const m of methods) if (m !== 'HEAD') set.add(m);
    routes.set(route.url, set);
  });
  addHooks(app, world);
  registerAuthRoutes(app, world);
  registerReadRoutes(app, world);
  registerCreateRoutes(app, world);
  registerPortalRoute(app, world);
  registerKeyAdmin(app, world, adminToken);
  registerBusinessAdmin(app, world, adminToken);
  registerBusinessesAdmin(app, world, adminToken);
  registerQuoteAdmin(app, world, adminToken);
  registerSystemAdmin(app, world, adminToken);
  addMethodNotAllowed(app, new Map(routes));
  return app;
}
