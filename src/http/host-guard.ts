// Which Host and Origin headers the HTTP server answers, decided here rather than by how the SDK spells
// loopback. Bound to a loopback address (any we treat as loopback: 127.0.0.0/8, localhost, ::1, in any
// spelling), the server answers only a Host that names loopback, the bound address or an --allowed-hosts
// entry, so a page on a rebinding domain cannot reach it; a browser Origin must be loopback, the bound
// address or an --allowed-origins entry. Beyond loopback, where a token is required, Host is checked only
// against --allowed-hosts when given, and every Origin not in --allowed-origins is refused.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopbackHost } from '../core/loopback.js';
import { forwardedHostProblem } from './forwarded.js';
import { rpcError, SERVER_REFUSAL } from './json-rpc-errors.js';

export interface HostGuardOptions {
  /** The address the server binds to. */
  host: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/** `name` as URL.hostname writes it (lower case, IPv4 normalised, IPv6 in brackets); null if not a host. */
export function canonicalHostname(name: string): string | null {
  const bare = name.startsWith('[') || !name.includes(':') ? name : `[${name}]`;
  try {
    const hostname = new URL(`http://${bare}`).hostname;
    return hostname === '' ? null : hostname;
  } catch {
    return null;
  }
}

/** The hostname of a Host header (port dropped); null when it is missing or not a host. */
function hostOfHeader(header: string | undefined): string | null {
  if (!header || /[\s/?#@\\]/.test(header)) return null;
  try {
    const hostname = new URL(`http://${header}`).hostname;
    return hostname === '' ? null : hostname;
  } catch {
    return null;
  }
}

function originAllowed(origin: string, isAllowedName: (hostname: string) => boolean, entries: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.hostname === '') return false;
  const wildcardScheme = url.protocol !== 'http:' && url.protocol !== 'https:' && entries.includes(`${url.protocol}//*`);
  return wildcardScheme || isAllowedName(url.hostname);
}

export interface HostGuard {
  /** Null when the request may go on, else why it is refused. */
  problem(headers: { host?: string | undefined; origin?: string | undefined }): string | null;
}

export function hostGuard(options: HostGuardOptions): HostGuard {
  const loopback = isLoopbackHost(options.host) || isLoopbackHost(canonicalHostname(options.host) ?? '');
  const names = (list: readonly string[]): Set<string> => new Set(list.map((n) => canonicalHostname(n) ?? n.toLowerCase()));
  const bound = canonicalHostname(options.host);
  const hosts = names(options.allowedHosts);
  const origins = names(options.allowedOrigins);
  const ours = (set: Set<string>) => (hostname: string) =>
    set.has(hostname) || (loopback && (isLoopbackHost(hostname) || hostname === bound));
  const checksHost = loopback || hosts.size > 0;
  const hostOk = ours(hosts);
  const originOk = ours(origins);
  return {
    problem({ host, origin }) {
      if (checksHost) {
        const hostname = hostOfHeader(host);
        if (hostname === null || !hostOk(hostname))
          return `Host ${JSON.stringify(host ?? '')} is not served here (add it with --allowed-hosts if it should be)`;
      }
      if (origin !== undefined && origin !== '' && !originAllowed(origin, originOk, options.allowedOrigins)) {
        return `Origin ${JSON.stringify(origin)} is not allowed (add its hostname with --allowed-origins if it should be)`;
      }
      return null;
    },
  };
}

export interface ForwardedGuardOptions {
  /** Hosted mode: the origin people reach the server at (--public-url's), the one host a proxy may forward. */
  publicOrigin?: string | undefined;
  /** Whether a request came straight from a proxy --trust-proxy names (only then are its forwarded headers read). */
  fromTrustedProxy: (req: IncomingMessage) => boolean;
}

/**
 * The fastify onRequest hook: 403 with a JSON-RPC error for a refused Host or Origin, or for a trusted proxy's
 * forwarded host that is not the public one. A client's own forwarded headers are not read.
 */
export function hostGuardHook(options: HostGuardOptions & ForwardedGuardOptions) {
  const guard = hostGuard(options);
  const publicOrigin = options.publicOrigin === undefined ? null : new URL(options.publicOrigin);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const problem =
      guard.problem({ host: request.headers.host, origin: request.headers.origin }) ??
      (publicOrigin && options.fromTrustedProxy(request.raw) ? forwardedHostProblem(request.headers, publicOrigin) : null);
    if (problem !== null) await reply.code(403).header('cache-control', 'no-store').send(rpcError(SERVER_REFUSAL, problem));
  };
}
