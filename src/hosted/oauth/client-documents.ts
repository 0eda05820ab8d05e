// Client ID metadata documents: a client named by the https:// URL of its metadata, which the server
// fetches when an authorization request names it. Anyone can send such a request, so the fetch reaches
// public addresses only (public-fetch.ts), within a time and a size; `--client-id-documents off` turns the
// feature off (the library then treats such a client as unknown and does not offer documents in its
// metadata). A person whose sign-in stops here is told why in the same words whatever was at the address.
import type { Configuration, ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import { CLIENT_LIMITS } from './client-limits.js';
import { type PublicFetchOptions, publicFetch } from './public-fetch.js';

const OUTGOING = {
  // The library aborts any request of its own after 2.5 s; the same limit here holds redirects too.
  timeoutMs: 2_500,
  // A jwks_uri or sector_identifier_uri answer; a document is held to a client's metadata's own bound.
  maxBytes: 64 * 1024,
  documentBytes: CLIENT_LIMITS.metadataBytes,
  maxRedirects: 3,
} as const;

/** The library's settings for documents (`enabled` or not) and for every fetch it makes (`reach`: the system's resolver, public addresses). */
export function clientDocumentSettings(
  enabled: boolean,
  reach: Pick<PublicFetchOptions, 'resolve' | 'isPublic'> = {},
): Pick<Configuration, 'fetch' | 'fetchResponseBodyLimits'> & { feature: { enabled: boolean; ack: 'draft-02' } } {
  return {
    feature: { enabled, ack: 'draft-02' },
    fetch: publicFetch({ ...OUTGOING, ...reach }),
    fetchResponseBodyLimits: {
      'client_id metadata document': OUTGOING.documentBytes,
      jwks_uri: OUTGOING.maxBytes,
      sector_identifier_uri: OUTGOING.maxBytes,
    },
  };
}

/** The library's own words for a document it could not fetch, for any reason (refused, failed, not 200, too big, not JSON). */
const FETCH_FAILED = 'client_id metadata document fetch failed';

/**
 * The error a person sees, with documents explained: one that could not be fetched reads the same whatever
 * was at its address, and one named while documents are off says they are.
 */
export function explainDocumentRefusal(ctx: KoaContextWithOIDC, out: ErrorOut, enabled: boolean): ErrorOut {
  if (out.error !== 'invalid_client') return out;
  if (out.error_description === FETCH_FAILED)
    return {
      ...out,
      error_description: `invalid_client: this client names itself by the address of its metadata document, which could not be fetched from a public address (within ${OUTGOING.timeoutMs / 1000} seconds and ${OUTGOING.documentBytes / 1024} KB, answering 200 with JSON)`,
    };
  const clientId = ctx.oidc?.params?.client_id;
  if (!enabled && typeof clientId === 'string' && /^https:\/\//i.test(clientId))
    return {
      ...out,
      error_description:
        'invalid_client: this server does not take clients named by the address of a metadata document; the client must register first',
    };
  return out;
}
