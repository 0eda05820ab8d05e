// The wire: one undici dispatcher per client, JSON in and out, query strings encoded exactly, and the
// failures with no answer (reset, refused, timeout) turned into NetworkFault. Also the back-off rule.
import type { Dispatcher } from 'undici';
import { counted } from '../core/counted.js';
import type { ServiceClock } from '../core/service-clock.js';
import { Agent, dispatch } from '../core/undici-core.js';
import { redactText } from '../log/redact.js';
import { NetworkFault } from './errors.js';

export type QueryValue = string | number | boolean | Date | null | undefined;
export type Query = Record<string, QueryValue>;
export type HttpMethod = 'GET' | 'POST' | 'DELETE';
export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface WireRequest {
  method: HttpMethod;
  /** Path under the base URL, such as `/api/v1/invoices`. */
  path: string;
  query?: Query | undefined;
  headers: Record<string, string>;
  /** JSON text. */
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface WireResponse {
  status: number;
  headers: ResponseHeaders;
  /** Parsed JSON; undefined when empty. */
  body: unknown;
  /** True when the body was not JSON. */
  unreadable: boolean;
  /** Length of the body text, for the cache's byte bound. */
  size: number;
}

/** Encodes one value: `+` becomes %2B, Dates are sent in UTC with `Z`, booleans as true/false. */
function encodeValue(value: Exclude<QueryValue, null | undefined>): string {
  const text = value instanceof Date ? value.toISOString() : String(value);
  return encodeURIComponent(text);
}

/**
 * `?a=1&b=2` with the keys in sorted order (one spelling per query, for the wire and the cache key),
 * skipping null and undefined; '' when nothing remains.
 */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  let out = '';
  for (const key of Object.keys(query).sort()) {
    const value = query[key];
    if (value === undefined || value === null) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeValue(value)}`;
  }
  return out;
}

export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const NOT_RETRYABLE_CODES = new Set(['ENOTFOUND', 'ERR_INVALID_URL', 'UND_ERR_INVALID_ARG']);

// Failures that happen before a request is written: the service cannot have acted on it.
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
  'UND_ERR_INVALID_ARG',
]);

/** Whether a request that failed with `err` certainly never reached the service. */
export function neverSent(err: unknown): boolean {
  const code = errorCode(err);
  return (
    code !== undefined &&
    (NEVER_SENT_CODES.has(code) ||
      code.startsWith('CERT_') ||
      code.startsWith('ERR_TLS_') ||
      code.includes('SELF_SIGNED') ||
      code.includes('UNABLE_TO_VERIFY'))
  );
}

/** Whether a failure with no answer is worth another attempt (not TLS trust, DNS absence, bad input). */
/**
 * Whether a failure with no answer may be retried as retry number `n`. A refused connection means nothing
 * listens there: it is tried once more (a service restarting), not until the budget runs out.
 */
export function mayRetryNoAnswer(err: unknown, n: number): boolean {
  if (errorCode(err) === 'ECONNREFUSED') return n <= 1;
  return isTransientNetworkError(err);
}

export function isTransientNetworkError(err: unknown): boolean {
  const code = errorCode(err);
  if (!code) return true;
  if (NOT_RETRYABLE_CODES.has(code)) return false;
  return !(code.startsWith('CERT_') || code.startsWith('ERR_TLS_') || code.includes('SELF_SIGNED') || code.includes('UNABLE_TO_VERIFY'));
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface TransportOptions {
  dispatcher?: Dispatcher | undefined;
  userAgent: string;
  timeoutMs: number;
  /** Connections to the service at most; null for as many as the calls in flight. */
  connections: number | null;
  /** Hears every answer's Date header. */
  serviceClock?: ServiceClock | undefined;
}

export class Transport {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #options: TransportOptions;

  constructor(baseUrl: string, options: TransportOptions) {
    const url = new URL(baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#options = options;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent({ connections: options.connections, keepAliveTimeout: 10_000, pipelining: 1 });
  }

  get host(): string {
    return new URL(this.#origin).host;
  }

  /** One request; an answer of any status resolves, no answer rejects with the underlying error. */
  async send(req: WireRequest): Promise<WireResponse> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#options.userAgent,
      ...req.headers,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = req.timeoutMs ?? this.#options.timeoutMs;
    const time = this.#options.serviceClock;
    const sentAt = time?.ourNow() ?? 0;
    const res = await dispatch(this.#dispatcher, {
      origin: this.#origin,
      path: `${this.#basePath}${req.path}${queryString(req.query)}`,
      method: req.method,
      headers,
      body: req.body ?? null,
      signal: req.signal ?? null,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    time?.heard(headerValue(res.headers, 'date'), sentAt, time.ourNow());
    const text = await res.body.text();
    let body: unknown;
    let unreadable = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        unreadable = true;
      }
    }
    return { status: res.statusCode, headers: res.headers, body, unreadable, size: text.length };
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** The NetworkFault for a request that got no answer: says the service cannot be reached, and where. */
  networkFault(
    err: unknown,
    call: { method: string; path: string; attempts: number; idempotencyKey?: string | undefined; reached?: boolean },
  ): NetworkFault {
    const code = errorCode(err) ?? 'no answer';
    const detail = err instanceof Error ? redactText(err.message) : String(err);
    const create = !call.idempotencyKey
      ? ''
      : call.reached === false
        ? ' The create was not applied: no attempt reached the service. Call again once it is reachable.'
        : ` The create may or may not have been applied: retry with the same idempotency key (${call.idempotencyKey}) so it cannot be created twice.`;
    const where = `${this.#origin}${this.#basePath}`;
    return new NetworkFault(
      `The service cannot be reached at ${where}: ${whyNoAnswer(code, this.#options.timeoutMs)} (${code}: ${detail}) on ${call.method} ${call.path}, after ${call.attempts} attempt(s). Check the network and SVC_BASE_URL, then try again.${create}`,
      {
        method: call.method,
        path: call.path,
        attempts: call.attempts,
        cause: err,
        ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
      },
    );
  }
}

/** The failure with no answer, in a user's words. */
function whyNoAnswer(code: string, timeoutMs: number): string {
  if (code === 'ECONNREFUSED') return 'nothing accepts connections there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code.includes('TIMEOUT') || code === 'ETIMEDOUT')
    return `it did not answer within ${counted(Math.round(timeoutMs / 1000), 'second')}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'the connection was dropped before an answer came';
  return 'no answer came';
}

export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Exponential back-off with "equal jitter": half the capped delay fixed, half random. `retry` from 1. */
export function backoffDelay(retry: number, policy: BackoffPolicy, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(cap / 2 + (random() * cap) / 2);
}
