// The authorization server: oidc-provider (a certified OpenID/OAuth 2.1 implementation) configured for MCP
// authorization. Authorization code with PKCE (S256 only, for every client), one resource (the canonical
// URL of /mcp) whose tokens are opaque and stored sealed, refresh tokens that rotate on every use,
// revocation, dynamic registration, client ID metadata documents and clients given in configuration; no
// DPoP. The sign-in (its interaction) is ours: see signin/.
import Provider, { type ClientMetadata, type Configuration, type ErrorOut, errors, type JWK, type KoaContextWithOIDC } from 'oidc-provider';
import type { PgDb } from '../../store/postgres/db.js';
import type { Sealer } from '../vault/sealer.js';
import { type GrantEnded, postgresAdapter } from './adapter.js';
import { clientDocumentSettings, explainDocumentRefusal } from './client-documents.js';
import { checkClientLimits } from './client-limits.js';
import { pinToPublicOrigin } from './public-origin.js';
import { canonicalResource, RESOURCE_SCOPES } from './resource.js';

export const OAUTH_PREFIX = '/oauth';
export const INTERACTION_PREFIX = `${OAUTH_PREFIX}/interaction`;
const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

export interface AuthServerOptions {
  /** The canonical URL of /mcp: the only resource, and the audience of every access token. */
  resource: string;
  db: PgDb;
  sealer: Sealer;
  /** The key that signs what the server signs (ID tokens, if a client asks for one), shared by every process. */
  signingKey: JWK;
  /** Keys for the server's cookies, shared by every process; the first signs. */
  cookieKeys: string[];
  /** Clients registered in configuration. */
  clients: ClientMetadata[];
  /** Whether a client may be an https:// URL naming its metadata document (fetched from public addresses only). */
  clientIdDocuments: boolean;
  /** Told of each grant ended by the reuse of a code or refresh token. */
  grantEnded: GrantEnded;
  /** Renders an error page the person sees (no third-party assets, our CSP). */
  renderError: (ctx: KoaContextWithOIDC, out: ErrorOut, error: Error) => Promise<void>;
}

export const ROUTES = {
  authorization: `${OAUTH_PREFIX}/authorize`,
  token: `${OAUTH_PREFIX}/token`,
  registration: `${OAUTH_PREFIX}/register`,
  revocation: `${OAUTH_PREFIX}/revoke`,
  jwks: `${OAUTH_PREFIX}/jwks`,
  end_session: `${OAUTH_PREFIX}/logout`,
  userinfo: `${OAUTH_PREFIX}/userinfo`,
  introspection: `${OAUTH_PREFIX}/introspect`,
  pushed_authorization_request: `${OAUTH_PREFIX}/par`,
  code_verification: `${OAUTH_PREFIX}/device`,
  device_authorization: `${OAUTH_PREFIX}/device/auth`,
  backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
  challenge: `${OAUTH_PREFIX}/challenge`,
} as const;

function resourceIndicators(resource: string): NonNullable<Configuration['features']>['resourceIndicators'] {
  return {
    enabled: true,
    // Clients must name the resource; one that does not gets the only one there is.
    defaultResource: async () => resource,
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx, indicator) => {
      if (canonicalResource(indicator) !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
      return { scope: RESOURCE_SCOPES.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_SECONDS, accessTokenFormat: 'opaque' };
    },
  };
}

/**
 * The library checks a token request's resource only after it has used the code or refresh token up, and
 * against the spelling granted: a wrong one would end the grant, and another spelling of this one be refused.
 * Checked here first, as the code or token is about to be used: another resource is refused (nothing used);
 * a spelling of this one is taken as the one granted.
 */
function resourceBeforeUse(resource: string): () => void {
  return () => {
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route !== 'token' || ctx.oidc.params?.resource === undefined) return;
    const given = ctx.oidc.params.resource as string | string[];
    if ((Array.isArray(given) ? given : [given]).some((r) => canonicalResource(r) !== resource)) {
      throw new errors.InvalidTarget(`the only resource here is ${resource}`);
    }
    ctx.oidc.params.resource = undefined;
  };
}

export function createAuthServer(issuer: string, options: AuthServerOptions): Provider {
  const documents = clientDocumentSettings(options.clientIdDocuments);
  const configuration: Configuration = {
    adapter: postgresAdapter(options.db, options.sealer, {
      grantEnded: options.grantEnded,
      beforeUse: resourceBeforeUse(options.resource),
    }),
    clients: options.clients,
    jwks: { keys: [options.signingKey] },
    cookies: { keys: options.cookieKeys },
    routes: ROUTES,
    // The resource's scopes are listed too, so a client may register with them; a grant holds them both as
    // its resource's scopes (what tokens carry) and as the server's (what the consent prompt checks).
    scopes: ['openid', 'offline_access', ...RESOURCE_SCOPES],
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    // The library calls the validator once for each extra property: one (RFC 7591's software_id) is enough to
    // see the whole of every client's metadata, whether registered, configured or from a document.
    extraClientMetadata: {
      properties: ['software_id'],
      validator: (_ctx, key, _value, metadata) => {
        if (key === 'software_id') checkClientLimits(metadata as Record<string, unknown>);
      },
    },
    features: {
      devInteractions: { enabled: false },
      // /mcp takes bearer tokens and checks no proof of possession: a token a client believes is bound to
      // its key would be good in anyone's hands.
      dPoP: { enabled: false },
      // No registration access token: nothing here reads or manages a registration after it is made, and each
      // would be a record that outlives its client.
      registration: { enabled: true, issueRegistrationAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: documents.feature,
      resourceIndicators: resourceIndicators(options.resource),
    },
    interactions: { url: async (_ctx, interaction) => `${INTERACTION_PREFIX}/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // Every grant's tokens outlive the browser session; refresh tokens rotate on every use.
    expiresWithSession: async () => false,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: ACCESS_TOKEN_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_SECONDS,
      Grant: REFRESH_TOKEN_SECONDS,
      Interaction: 600,
      Session: 600,
    },
    renderError: (ctx, out, error) => options.renderError(ctx, explainDocumentRefusal(ctx, out, options.clientIdDocuments), error),
    // Every request the library makes goes to a URL someone named: to public addresses only.
    fetch: documents.fetch,
    fetchResponseBodyLimits: documents.fetchResponseBodyLimits,
  };
  const provider = new Provider(issuer, configuration);
  // RFC 9700 section 4.11.2: anyone may register a client for any https:// page, so a redirect URI is only
  // trusted once a person has been through the sign-in page. An error in the first authorization request is
  // shown on our page (renderError); only the outcome of a sign-in (the resume) goes back to the client. The
  // library emits this event before it decides whether to redirect. (prompt=none's errors carry a 303 meant
  // for the redirect: on our page they are a 400.)
  provider.on('authorization.error', (ctx: KoaContextWithOIDC, err: errors.OIDCProviderError) => {
    if (ctx.oidc.route !== 'authorization') return;
    err.allow_redirect = false;
    if (ctx.status < 400) ctx.status = 400;
  });
  // Behind a TLS-terminating proxy the public scheme and host are the issuer's, whatever a request says.
  pinToPublicOrigin(provider, issuer);
  return provider;
}
