// Every URL the authorization server writes (its metadata, redirects, the sign-in's way back) is on the
// public URL's origin: the library's requests take their scheme and host from --public-url, never from a
// request's Host, X-Forwarded-* or Forwarded headers or a host written in its request line.
import type Provider from 'oidc-provider';

/** The path and query of a request target, whether written as a path or (absolute-form) a whole URL. */
function pathOf(target: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return target;
  const url = new URL(target);
  return `${url.pathname}${url.search}`;
}

/** Pins the scheme and host of every request the provider (a koa app) answers to `publicOrigin`. */
export function pinToPublicOrigin(provider: Provider, publicOrigin: string): void {
  const origin = new URL(publicOrigin);
  const protocol = origin.protocol.slice(0, -1);
  // No header of a request is the proxy's word to the library (who the client is, it is never asked).
  provider.proxy = false;
  // koa's request prototype of this app: each request's request object is made from it.
  Object.defineProperties(provider.request, {
    protocol: { get: () => protocol },
    host: { get: () => origin.host },
    href: {
      get(this: { originalUrl: string }) {
        return `${origin.origin}${pathOf(this.originalUrl)}`;
      },
    },
    URL: {
      get(this: { href: string }) {
        return new URL(this.href);
      },
    },
  });
}
