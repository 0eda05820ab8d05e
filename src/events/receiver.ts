// The webhook receiver: POST /webhooks in its own encapsulated fastify plugin, with a raw-body parser of its
// own (the app's other routes keep theirs). Checks in order: size, signature of the raw bytes, age, JSON,
// replay; then publishes. Refusals answer 400/413 with a short message and emit nothing. Logs carry neither
// the secret nor the signature. One route may serve several endpoints (hosted mode: one per tenant, by its
// path): a delivery to an endpoint that does not exist is refused as one with a wrong signature is.
import { randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type HttpLimits, limitedFastify } from '../http/limits.js';
import { throttledLog } from '../log/throttle.js';
import { BoundedMemory } from './bounded-memory.js';
import type { EventBus } from './bus.js';
import { eventFromWebhook } from './from-webhook.js';
import { verifySignature } from './signature.js';

export const WEBHOOK_PATH = '/webhooks';
export const WEBHOOK_BODY_LIMIT = 256 * 1024;
/** How many event ids done each endpoint remembers. */
const EVENT_IDS_REMEMBERED = 10_000;

/** One endpoint: its signing secret and where its events go. */
export interface WebhookTarget {
  /** Names the endpoint (hosted mode: its tenant's key). */
  id: string;
  /** The endpoint's signing secret (`whsec_…`). */
  secret: string;
  bus: EventBus;
  /**
   * Resolves once what the events feed is ready to hear them (a tenant's mirror, opened). Asked for only by a
   * delivery whose signature holds, with an event not done before, just before it is published.
   */
  ready?: () => Promise<void>;
}

/** The endpoint a delivery is for, or null when there is none. */
export type WebhookTargetOf = (request: FastifyRequest) => Promise<WebhookTarget | null>;

interface RouteBasics {
  logger: Logger;
  /** Our clock, ms since the epoch. */
  now?: () => number;
  /** How many event ids done each endpoint remembers; EVENT_IDS_REMEMBERED unless given. */
  remembered?: number;
}

/** The one endpoint of a desktop server. */
export interface OneEndpoint extends RouteBasics {
  secret: string;
  bus: EventBus;
}

export type WebhookRouteOptions = (OneEndpoint | (RouteBasics & { targetOf: WebhookTargetOf })) & { path?: string };

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send({ message });
}

/** Adds POST `path` (default /webhooks) to `app`, in an encapsulated plugin. */
export async function registerWebhookRoute(app: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  const path = options.path ?? WEBHOOK_PATH;
  const now = options.now ?? Date.now;
  const logger = options.logger.child({ component: 'webhooks' });
  const targetOf: WebhookTargetOf =
    'targetOf' in options ? options.targetOf : async () => ({ id: '', secret: options.secret, bus: options.bus });
  // A delivery to no endpoint is checked against a secret no one has, so it is refused as a forged one is.
  const nobody = `whsec_${randomBytes(32).toString('base64url')}`;
  // Recent event ids, so that a redelivery is answered and not acted on again: a memory per endpoint, so that
  // no endpoint's deliveries push another's ids out. Keyed by the endpoint's bus, so that it goes with its
  // tenant (hosted mode: a tenant forgotten).
  const remembered = options.remembered ?? EVENT_IDS_REMEMBERED;
  const memories = new WeakMap<EventBus, BoundedMemory<string, true>>();
  const memoryOf = (target: WebhookTarget): BoundedMemory<string, true> => {
    let memory = memories.get(target.bus);
    if (!memory) memories.set(target.bus, (memory = new BoundedMemory(remembered)));
    return memory;
  };

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err: FastifyError, _req, reply) => {
      // 503: what the delivery needs cannot be read just now (a hosted vault key being rotated); the service retries.
      if (err.statusCode === 503) return refuse(reply.header('retry-after', '30'), 503, 'not ready for this delivery: try again later');
      const status = err.statusCode === 413 ? 413 : err.statusCode && err.statusCode < 500 ? 400 : 500;
      logger.warn({ notice: true, status, code: err.code }, 'webhook delivery refused before its checks');
      return refuse(reply, status, status === 413 ? 'body larger than 256 KB' : 'bad request');
    });

    scope.post(path, { bodyLimit: WEBHOOK_BODY_LIMIT }, async (req: FastifyRequest, reply: FastifyReply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const target = await targetOf(req);
      const check = verifySignature(req.headers['x-service-signature'], raw, target?.secret ?? nobody, now());
      if (!check.ok) {
        const reason = target ? check.reason : 'no such endpoint';
        logger.warn({ notice: true, reason, bytes: raw.length }, `webhook delivery refused: ${check.message}`);
        return refuse(reply, 400, check.message);
      }
      if (!target) return refuse(reply, 400, 'signature does not match');
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        logger.warn({ notice: true, bytes: raw.length }, 'webhook delivery refused: body is not JSON');
        return refuse(reply, 400, 'body is not JSON');
      }
      const parsed = eventFromWebhook(body);
      if (!parsed.ok && parsed.reason === 'invalid') {
        logger.warn({ notice: true, problem: parsed.message }, 'webhook delivery refused: unexpected shape');
        return refuse(reply, 400, parsed.message);
      }
      const eventId = parsed.ok ? parsed.event.id : parsed.eventId;
      const seen = memoryOf(target);
      if (seen.has(eventId)) {
        logger.debug({ eventId }, 'webhook delivery repeated: already done');
        return reply.code(204).send();
      }
      seen.set(eventId, true);
      if (!parsed.ok) {
        logger.debug({ eventId, kind: parsed.kind.slice(0, 100) }, 'webhook event of an unknown kind: acknowledged, not published');
        return reply.code(204).send();
      }
      let published: boolean;
      try {
        await target.ready?.();
        published = target.bus.publish(parsed.event);
      } catch (err) {
        // Not done: forget the id so the service's retry acts on it.
        seen.delete(eventId);
        logger.error({ eventId, err: err instanceof Error ? err.message : String(err) }, 'webhook event could not be published');
        return refuse(reply, 500, 'event not processed; retry');
      }
      logger.debug({ eventId, kind: parsed.event.kind, published }, 'webhook event received');
      return reply.code(204).send();
    });
  });
}

/** One endpoint, or several under `path` (a server of several businesses: /webhooks/:business). */
export type WebhookListenerOptions = WebhookRouteOptions & {
  logger: Logger;
  host: string;
  /** 0 = an ephemeral port. */
  port: number;
  limits: HttpLimits;
};

export interface WebhookListener {
  /** The receiver's URL, to register with the service (with several endpoints, followed by /<endpoint>). */
  url: string;
  close(): Promise<void>;
}

/** A small standalone server with only the webhook route (stdio mode with --webhook-port). */
export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const app = await limitedFastify({ limits: options.limits, bodyLimit: WEBHOOK_BODY_LIMIT, log: throttledLog(options.logger) });
  await registerWebhookRoute(app, options);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  options.logger.info({ url: `http://${host}:${port}${WEBHOOK_PATH}` }, 'webhook receiver listening');
  return { url: `http://${host}:${port}${WEBHOOK_PATH}`, close: () => app.close() };
}
