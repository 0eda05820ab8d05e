// What a client may register, checked on every client the library loads (registered, configured or from a
// metadata document): dynamic registration is open to anyone, so what it stores is bounded, and a redirect
// URI over plain http:// must stay on the person's own machine (RFC 8252 loopback), never a page elsewhere
// that codes or errors could be sent to.
import { errors } from 'oidc-provider';

export const CLIENT_LIMITS = { redirectUris: 10, uriLength: 2_000, nameLength: 200, metadataBytes: 16 * 1024 } as const;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function checkRedirect(uri: unknown): void {
  if (typeof uri !== 'string') return;
  if (uri.length > CLIENT_LIMITS.uriLength)
    throw new errors.InvalidClientMetadata(`redirect_uris: each may have at most ${CLIENT_LIMITS.uriLength} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return; // the library refuses what is not a URL, in its own words
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname))
    throw new errors.InvalidClientMetadata(
      `redirect_uris: ${uri}: a redirect URI must be https://, or http:// to this machine's loopback (127.0.0.1, [::1] or localhost)`,
    );
}

/**
 * Throws the registration error that says what to fix when `metadata` is past a limit (a description that
 * begins with "redirect_uris" is the library's invalid_redirect_uri, any other its invalid_client_metadata).
 */
export function checkClientLimits(metadata: Record<string, unknown>): void {
  const name = metadata.client_name;
  if (typeof name === 'string' && name.length > CLIENT_LIMITS.nameLength)
    throw new errors.InvalidClientMetadata(`client_name may have at most ${CLIENT_LIMITS.nameLength} characters`);
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  if (uris.length > CLIENT_LIMITS.redirectUris)
    throw new errors.InvalidClientMetadata(`redirect_uris: a client may register at most ${CLIENT_LIMITS.redirectUris} redirect URIs`);
  for (const uri of uris) checkRedirect(uri);
  if (JSON.stringify(metadata).length > CLIENT_LIMITS.metadataBytes)
    throw new errors.InvalidClientMetadata(`a client's metadata may be at most ${CLIENT_LIMITS.metadataBytes / 1024} KB`);
}
