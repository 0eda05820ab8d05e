// The resource server's check of every /mcp request: the bearer token must be an access token this server
// issued, unexpired, not revoked, and for this resource (its audience the canonical URL of /mcp); then its
// grant's key leads to the tenant. A refusal is 401 (or 403) with the WWW-Authenticate challenge that names
// the protected resource metadata, so a client can discover where to sign in.
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { CheckedTokens } from './checked-tokens.js';
import type { GrantLimiter } from './grant-limit.js';
import { resourceMetadataUrl } from './mount.js';
import { pauseBody, pauseFor } from './unreachable.js';

/** What a checked token leads to, added to its AuthInfo for the server factory; `reply` ends the request's use of it. */
export type TenantLookup = (keyId: string, auth: AuthInfo, reply: FastifyReply) => Promise<Record<string, unknown> | null>;

function verifier(provider: Provider, checked: CheckedTokens): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token) {
      const kept = checked.get(token);
      if (kept) return kept;
      const found = await provider.AccessToken.find(token);
      // Its grant must still be there, as the library's introspection asks: a grant ended while this token
      // was being issued (a code or refresh token presented twice at once) takes the token with it.
      const grant = found?.grantId ? await provider.Grant.find(found.grantId) : undefined;
      if (!found || found.isExpired || !grant || grant.clientId !== found.clientId || grant.accountId !== found.accountId)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is unknown, expired or revoked: sign in again.');
      const aud = Array.isArray(found.aud) ? found.aud[0] : found.aud;
      const auth: AuthInfo = {
        token,
        clientId: found.clientId ?? '',
        scopes: (found.scope ?? '').split(' ').filter(Boolean),
        ...(found.exp === undefined ? {} : { expiresAt: found.exp }),
        ...(aud ? { resource: new URL(aud) } : {}),
        extra: { grantId: found.grantId, keyId: found.accountId },
      };
      checked.keep(token, auth);
      return auth;
    },
  };
}

async function sendResponse(reply: FastifyReply, response: Response): Promise<void> {
  reply.code(response.status);
  for (const [name, value] of response.headers) reply.header(name, value);
  await reply.send(await response.text());
}

export function bearerCheck(provider: Provider, resource: string, tenantOf: TenantLookup, limiter: GrantLimiter, checked: CheckedTokens) {
  const options = {
    verifier: verifier(provider, checked),
    expectedResource: new URL(resource),
    resourceMetadataUrl: resourceMetadataUrl(resource),
  };
  return async (request: FastifyRequest, reply: FastifyReply): Promise<AuthInfo | null> => {
    try {
      const auth = await verifyBearerToken(request.headers.authorization, options);
      const verdict = limiter.hit(String(auth.extra?.grantId));
      if (!verdict.allowed) {
        await reply
          .code(429)
          .header('retry-after', String(verdict.retryAfter))
          .send({
            error: 'rate_limited',
            message: `This connection sent more than ${limiter.perMinute} requests in a minute; try again in ${verdict.retryAfter} s.`,
          });
        return null;
      }
      const tenant = await tenantOf(String(auth.extra?.keyId), auth, reply);
      if (!tenant)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'The business behind this token is no longer signed in: sign in again.');
      return { ...auth, extra: { ...auth.extra, ...tenant } };
    } catch (err) {
      // Down for now (the database, or a vault key mid-rotation): a wait, never a 500 nor a challenge to sign in again.
      const pause = pauseFor(err);
      if (pause) {
        await reply.code(503).header('retry-after', String(pause.retryAfter)).send(pauseBody(pause));
        return null;
      }
      await sendResponse(reply, bearerAuthChallengeResponse(err, { resourceMetadataUrl: options.resourceMetadataUrl }));
      return null;
    }
  };
}
