// The authorization server under our fastify app, and the discovery documents: oidc-provider (a koa app)
// answers its own routes (all under /oauth/ but the sign-in pages, which are more specific routes of ours)
// from the raw request, its body unread by fastify; RFC 8414 metadata is its
// discovery document served at /.well-known/oauth-authorization-server too; RFC 9728 protected resource
// metadata names it for /mcp.
import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { clientOf } from '../../http/per-client.js';
import type { Registrations } from '../limits/registrations.js';
import { OAUTH_PREFIX, ROUTES } from './provider.js';
import { RESOURCE_SCOPES } from './resource.js';
import { pauseBody, pauseFor } from './unreachable.js';

const OIDC_DISCOVERY = '/.well-known/openid-configuration';
const OAUTH_DISCOVERY = '/.well-known/oauth-authorization-server';

/**
 * Whether the library's router takes `url` for the registration endpoint: it matches paths in any case and
 * with one trailing slash (upper-casing every character here takes in at least all it does).
 */
function isRegistration(url: string): boolean {
  const path = url.split('?')[0] as string;
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return bare.toUpperCase() === ROUTES.registration.toUpperCase();
}

/** False when the request was a registration past its address's rate, answered here (429, RFC 7591's error body). */
async function registrationAllowed(request: FastifyRequest, reply: FastifyReply, registrations: Registrations): Promise<boolean> {
  if (request.method !== 'POST' || !isRegistration(request.raw.url ?? '')) return true;
  let waitMs: number;
  try {
    waitMs = await registrations.take(clientOf(request.raw));
  } catch (err) {
    const pause = pauseFor(err);
    if (!pause) throw err;
    await reply.code(503).header('retry-after', String(pause.retryAfter)).send(pauseBody(pause));
    return false;
  }
  if (waitMs === 0) return true;
  const seconds = Math.ceil(waitMs / 1000);
  await reply
    .code(429)
    .header('retry-after', String(seconds))
    .header('cache-control', 'no-store')
    .send({
      error: 'temporarily_unavailable',
      error_description: `this address has registered ${registrations.perHour} clients in the last hour, the most it may; try again in ${seconds} s (a client registers once and keeps its client_id)`,
    });
  return false;
}

/**
 * A discovery document is the same for every request (its URLs are --public-url's), so a shared cache may
 * keep it a while; it varies on Origin (CORS), and on the forwarded host a trusted proxy gives (refused when
 * it is not the public one).
 */
const DISCOVERY_CACHING = { 'cache-control': 'public, max-age=300', vary: 'Origin, X-Forwarded-Host, Forwarded' } as const;

export function mountAuthServer(app: FastifyInstance, provider: Provider, registrations: Registrations): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === 'discovery' && ctx.status === 200) {
      ctx.set('cache-control', DISCOVERY_CACHING['cache-control']);
      ctx.vary(DISCOVERY_CACHING.vary);
    }
  });
  const callback = provider.callback();
  app.register(async (scope) => {
    // The body is left unread for the authorization server to read itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (!(await registrationAllowed(request, reply, registrations))) return;
      reply.hijack();
      // RFC 8414's location for an issuer without a path; the document is the same.
      if (request.raw.url?.startsWith(OAUTH_DISCOVERY)) request.raw.url = request.raw.url.replace(OAUTH_DISCOVERY, OIDC_DISCOVERY);
      await callback(request.raw, reply.raw);
    };
    scope.all(`${OAUTH_PREFIX}/*`, handler);
    scope.get(OIDC_DISCOVERY, handler);
    scope.get(OAUTH_DISCOVERY, handler);
  });
}

/** The protected resource metadata's URL for the resource (RFC 9728: the well-known path before the resource's path). */
export const resourceMetadataUrl = (resource: string): string => getOAuthProtectedResourceMetadataUrl(new URL(resource));

export function registerResourceMetadata(app: FastifyInstance, resource: string, issuer: string): void {
  const as: OAuthMetadata = {
    issuer,
    authorization_endpoint: new URL(ROUTES.authorization, issuer).href,
    token_endpoint: new URL(ROUTES.token, issuer).href,
    response_types_supported: ['code'],
  };
  const document = buildOAuthProtectedResourceMetadata({
    oauthMetadata: as,
    resourceServerUrl: new URL(resource),
    scopesSupported: [...RESOURCE_SCOPES],
    resourceName: 'invoicing-mcp: the books of the business you sign in with',
  });
  const path = new URL(resourceMetadataUrl(resource)).pathname;
  app.get(path, async (_request, reply) => reply.header('access-control-allow-origin', '*').headers(DISCOVERY_CACHING).send(document));
}
