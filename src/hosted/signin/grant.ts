// The grant Allow makes: the resource's scopes the person chose (as the resource's and as the server's,
// which its consent check reads), what was asked for and not chosen refused outright (or the server would
// ask again), and the OpenID scopes the client asked for.
import type { Interaction, default as Provider } from 'oidc-provider';
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

/**
 * A request that named none of the resource's scopes asked for the resource as a whole (requestedScopes):
 * its stored parameters are made to say so before the grant, for the server grants only scopes a request
 * names (without this, Allow would send such a client back with access_denied). OAuth lets the server
 * apply a default scope when the client omits one (RFC 6749, section 3.3).
 */
export async function nameRequestedScopes(interaction: Interaction, requested: ReadonlySet<string>): Promise<void> {
  const asked = String(interaction.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  const named = new Set([...asked, ...requested]);
  if (named.size === asked.length) return;
  interaction.params.scope = [...named].join(' ');
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
}
