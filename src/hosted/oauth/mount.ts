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
import { OAUTH_PREFIX, ROUTES } from './provider.js';
import { RESOURCE_SCOPES } from './resource.js';

const OIDC_DISCOVERY = '/.well-known/openid-configuration';
const OAUTH_DISCOVERY = '/.well-known/oauth-authorization-server';

export function mountAuthServer(app: FastifyInstance, provider: Provider): void {
  const callback = provider.callback();
  app.register(async (scope) => {
    // The body is left unread for the authorization server to read itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
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
  app.get(path, async (_request, reply) =>
    reply.header('access-control-allow-origin', '*').header('cache-control', 'max-age=300').send(document),
  );
}
