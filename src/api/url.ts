// Which base URLs the client accepts: HTTPS anywhere, plain HTTP only on loopback (the sandbox).
import { isLoopbackHost } from '../core/loopback.js';

/** Null when `url` is an acceptable base URL, else the reason (one phrase, no values echoed). */
export function baseUrlProblem(url: URL): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return 'must use https:// (plain http:// is allowed only for loopback hosts: 127.0.0.1, localhost, ::1)';
  }
  if (url.username || url.password) return 'must not carry a user name or password (credentials go in SVC_KEY_ID and SVC_SECRET)';
  if (url.search || url.hash) return 'must not carry a query or fragment';
  return null;
}

/** The base URL without a trailing slash, so paths such as `/api/v1/invoices` append cleanly. */
export function normaliseBaseUrl(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
