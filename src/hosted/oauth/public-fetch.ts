// The authorization server's outgoing requests (a client ID metadata document, a client's jwks_uri or
// sector_identifier_uri) go to URLs a stranger names, so they reach public addresses only, and this is the
// one fetch that makes them (the library's `fetch` setting; the dispatcher the library passes along, which
// checks an address only once connected, is not used). An address written in the URL is checked before
// anything else; a name is checked inside the socket's own lookup: every address it resolves to must be
// public, and the socket connects to one of those, so a name that answers differently a moment later gains
// nothing. Redirects are followed here, a few at most, each hop checked the same way. Every answer is cut at
// a size while it streams, and the whole request, redirects included, at a time.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Agent, dispatch } from '../../core/undici-core.js';
import { publicAddressCheck } from './public-address.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface PublicFetchOptions {
  /** The whole request, redirects included (ms). */
  timeoutMs: number;
  /** The largest answer body read (bytes). */
  maxBytes: number;
  /** Redirects followed at most. */
  maxRedirects: number;
  /** A name's addresses (the system's resolver when not given). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Whether an address may be connected to (the public internet's only, when not given). */
  isPublic?: (address: string) => boolean;
  /** A signal that aborts after `ms` (AbortSignal.timeout when not given). */
  deadline?: (ms: number) => AbortSignal;
}

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export class NotPublicError extends Error {
  constructor(what: string) {
    super(`refused: ${what} is not a public address`);
    this.name = 'NotPublicError';
  }
}

const systemResolve = (hostname: string): Promise<ResolvedAddress[]> => dnsLookup(hostname, { all: true, verbatim: true });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([204, 205, 304]);

/** The socket's lookup: `hostname` resolved, and refused unless every address it has is public. */
function checkedLookup(resolve: (hostname: string) => Promise<ResolvedAddress[]>, isPublic: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const refused = found.find((a) => !isPublic(a.address));
        if (found.length === 0 || refused) {
          callback(new NotPublicError(`${hostname} (${refused?.address ?? 'no address'})`), '', 0);
        } else if (options.all) {
          (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, found);
        } else {
          const first = found[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** A fetch for oidc-provider's `fetch` setting that reaches public addresses only. */
export function publicFetch(options: PublicFetchOptions): Fetch {
  const isPublic = options.isPublic ?? publicAddressCheck();
  const deadline = options.deadline ?? ((ms: number) => AbortSignal.timeout(ms));
  const agent = new Agent({
    connect: { lookup: checkedLookup(options.resolve ?? systemResolve, isPublic), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  const once = (url: URL, init: RequestInit, signal: AbortSignal): Promise<Dispatcher.ResponseData> => {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`refused: ${url.protocol} URLs are not fetched`);
    // An address written in the URL is connected to without a lookup: checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !isPublic(host)) throw new NotPublicError(host);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    return dispatch(agent, {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      signal,
      reset: true,
    });
  };

  return async (input, init = {}) => {
    // The library's requests are all GETs without a body: a redirect is the same GET at another URL.
    if ((init.method ?? 'GET') !== 'GET' || init.body) throw new Error('refused: only GET requests are made');
    const signal = AbortSignal.any([deadline(options.timeoutMs), ...(init.signal ? [init.signal] : [])]);
    let url = new URL(input instanceof Request ? input.url : String(input));
    let answer = await once(url, init, signal);
    for (let hops = 0; REDIRECTS.has(answer.statusCode) && init.redirect !== 'manual'; hops++) {
      const location = answer.headers.location;
      await answer.body.dump();
      if (init.redirect === 'error') throw new Error('refused: the answer is a redirect');
      if (typeof location !== 'string') throw new Error('refused: a redirect without a Location');
      if (hops >= options.maxRedirects) throw new Error(`refused: more than ${options.maxRedirects} redirects`);
      url = new URL(location, url);
      answer = await once(url, init, signal);
    }
    return toResponse(answer, options.maxBytes);
  };
}

/** The undici answer as a WHATWG Response, refused past `maxBytes` (declared, or counted as it streams). */
function toResponse(answer: Dispatcher.ResponseData, maxBytes: number): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  if (NO_BODY.has(answer.statusCode)) {
    discard(answer.body);
    return new Response(null, { status: answer.statusCode, headers });
  }
  const tooLarge = () => new Error(`refused: the answer is larger than ${maxBytes} bytes`);
  if (Number(headers.get('content-length') ?? 0) > maxBytes) {
    discard(answer.body);
    throw tooLarge();
  }
  return new Response(ReadableStream.from(limited(answer.body, maxBytes, tooLarge)), { status: answer.statusCode, headers });
}

/**
 * Lets an unread body go. undici's body, destroyed before its end, emits an error; once its request has ended
 * no one listens for it (an uncaught exception: a 204 from anyone's server ended the process).
 */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function* limited(body: Readable, maxBytes: number, tooLarge: () => Error): AsyncGenerator<Uint8Array> {
  let received = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > maxBytes) {
      discard(body);
      throw tooLarge();
    }
    yield chunk;
  }
}
