// The grant Allow makes: the resource's scopes the person chose (as the resource's and as the server's,
// which its consent check reads), what was asked for and not chosen refused outright (or the server would
// ask again), and the OpenID scopes the client asked for.
import type Provider from 'oidc-provider';
import { SCOPE_READ, SCOPE_WRITE } from '../oauth/resource.js';

export interface GrantRequest {
  resource: string;
  clientId: string;
  /** The account: the business's key ID. */
  keyId: string;
  access: 'read' | 'write';
  /** The resource scopes the client asked for (see requestedScopes). */
  requested: ReadonlySet<string>;
  /** The authorization request's whole `scope`. */
  scope: unknown;
}

export async function makeGrant(provider: Provider, request: GrantRequest): Promise<string> {
  const grant = new provider.Grant({ accountId: request.keyId, clientId: request.clientId });
  const granted = request.access === 'write' ? [SCOPE_READ, SCOPE_WRITE] : [SCOPE_READ];
  grant.addResourceScope(request.resource, granted.join(' '));
  grant.addOIDCScope(granted.join(' '));
  const refused = [...request.requested].filter((s) => (s === SCOPE_READ || s === SCOPE_WRITE) && !granted.includes(s));
  if (refused.length > 0) {
    grant.rejectResourceScope(request.resource, refused.join(' '));
    grant.rejectOIDCScope(refused.join(' '));
  }
  const asked = new Set(String(request.scope ?? '').split(' '));
  for (const oidc of ['openid', 'offline_access']) if (asked.has(oidc)) grant.addOIDCScope(oidc);
  return grant.save();
}
