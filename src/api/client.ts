// The client of the Invoicing Service: one entry, `createApiClient(config, deps)`, and no module state.
// Knows nothing of MCP; works against the real service and the sandbox alike.
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { ServiceClock } from '../core/service-clock.js';
import { sleep as realSleep, type Timers } from '../core/timers.js';
import { type CacheOptions, type CacheStats, DEFAULT_CACHE_OPTIONS, ReadCache } from './cache.js';
import { type CustomersApi, customersApi } from './endpoints/customers.js';
import { type InvoicesApi, invoicesApi } from './endpoints/invoices.js';
import { type PaymentsApi, type ProductsApi, paymentsApi, productsApi, type QuotesApi, quotesApi } from './endpoints/reads.js';
import type { Forbidden, Unauthorized } from './errors.js';
import { Transport } from './http.js';
import { Pacer, type RateLimitState } from './pacing.js';
import { RequestCore } from './request.js';
import { type Ping, PingSchema, type ResourceKind } from './schemas.js';
import { SessionManager } from './session.js';
import { baseUrlProblem } from './url.js';
import { decoder } from './validate.js';

export interface ClientConfig {
  baseUrl: string;
  keyId: string;
  secret: string;
}

export interface ClientOptions {
  /** Retries after the first attempt on 5xx, resets and timeouts (reads and keyed creates only). */
  maxRetries: number;
  /** No retry starts later than this after the call began (ms). */
  retryBudgetMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Per attempt: time to the answer's headers, and between body chunks (ms). */
  requestTimeoutMs: number;
  /** A call that would wait longer than this for the rate limit fails with RateLimited (ms). */
  maxWaitMs: number;
  /** Calls in flight at once; null (the default) follows the key's budget (see Pacer). */
  maxConcurrent: number | null;
  /** Sign in again when the session has less than this left (ms). */
  renewMarginMs: number;
  /** Answered sign-in requests (retries included) in any 60 s; the service allows 10 per address. */
  maxSignInsPerMinute: number;
  /** After a refused sign-in, calls fail at once for this long (ms). */
  signInFailureCooldownMs: number;
  cache: CacheOptions;
  userAgent: string;
}

export const DEFAULT_CLIENT_OPTIONS: ClientOptions = {
  maxRetries: 5,
  retryBudgetMs: 30_000,
  backoffBaseMs: 250,
  backoffMaxMs: 8_000,
  requestTimeoutMs: 15_000,
  maxWaitMs: 30_000,
  maxConcurrent: null,
  renewMarginMs: 120_000,
  maxSignInsPerMinute: 8,
  signInFailureCooldownMs: 20_000,
  cache: DEFAULT_CACHE_OPTIONS,
  userAgent: 'invoicing-mcp/0.1',
};

export type ClientOptionsInput = Partial<Omit<ClientOptions, 'cache'>> & { cache?: Partial<CacheOptions> };

export interface ApiClientDeps {
  logger: Logger;
  options?: ClientOptionsInput;
  /** An undici dispatcher to use instead of the client's own (proxies, tests). */
  dispatcher?: Dispatcher;
  /** Clock for session expiry and pacing (ms since epoch). */
  now?: () => number;
  /** Where the Dates of its answers go; a new one on `now` unless given (a client loaded on first use gives its own). */
  serviceClock?: ServiceClock;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The pacer's timers (waits for the rate limit); real ones unless given. */
  timers?: Timers;
  /** Told when the service refuses a sign-in with 401 or 403 (the key was revoked, regenerated or suspended). */
  onSignInRefused?: (error: Unauthorized | Forbidden) => void;
  /** Told when the service accepted the key: a sign-in, or a call made with its session (and when it was sent). */
  onKeyAccepted?: (sentAt: number) => void;
  /** Waited for before each sign-in request: an allowance shared with other clients (hosted mode's), or RateLimited. */
  signInAllowance?: () => Promise<void>;
}

export interface SessionInfo {
  mode: string;
  keyId: string;
  scopes: string[];
  business: { id?: number | undefined; name?: string | undefined } | null;
  /** Epoch ms by the client's clock. */
  expiresAt: number | null;
  /** The same moment as the service wrote it (`expires_at`, its clock and time zone); null when it did not. */
  serviceExpiresAt: string | null;
}

export interface ClientStats {
  cache: CacheStats;
  rateLimit: RateLimitState;
  signIns: number;
}

export interface ApiClient {
  readonly baseUrl: string;
  readonly keyId: string;
  /** From the key ID's prefix. */
  readonly mode: 'live' | 'test';
  readonly customers: CustomersApi;
  readonly invoices: InvoicesApi;
  readonly quotes: QuotesApi;
  readonly payments: PaymentsApi;
  readonly products: ProductsApi;
  /** Checks the session (GET /api/ping, never cached). */
  ping(options?: { signal?: AbortSignal }): Promise<Ping>;
  /** Signs in if needed; mode, scopes and business of the key. */
  session(options?: { signal?: AbortSignal }): Promise<SessionInfo>;
  /** The service's clock as the Dates of its answers tell it (read without a call; null before any answer). */
  readonly serviceClock: ServiceClock;
  /** The service's time now (ms since the epoch) as the Date of its latest answers tells it; null before any. */
  serviceNow(): number | null;
  /** The service's time at its first answer to this client (its Date); null before any. */
  serviceSince(): number | null;
  /** Drops cached reads of record `id` of `kind` (or of every record of it) and of its lists. */
  invalidate(kind: ResourceKind, id?: number | string): void;
  clearCache(): void;
  stats(): ClientStats;
  /** About how long `calls` more calls of a task take from now at the key's pace (ms); null until it is known. */
  estimateMs(calls: number): number | null;
  /**
   * The key's rate limit shared with other processes: `onHeld` is told when a 429 here holds this key's calls
   * (until, epoch ms); `holdUntil` holds them for one another process met.
   */
  readonly rateLimitHold: { onHeld(listener: (untilMs: number) => void): () => void; holdUntil(untilMs: number): void };
  /** Signs out (best effort) and releases connections. */
  close(): Promise<void>;
}

function resolveOptions(input: ClientOptionsInput | undefined): ClientOptions {
  const cache = { ...DEFAULT_CACHE_OPTIONS, ...input?.cache, ttlMs: { ...DEFAULT_CACHE_OPTIONS.ttlMs, ...input?.cache?.ttlMs } };
  return { ...DEFAULT_CLIENT_OPTIONS, ...input, cache };
}

type Clocks = { now: () => number; sleep: (ms: number, signal?: AbortSignal) => Promise<void> };

/** The key's session: signs in through the request core, told of refusals and acceptances as deps ask. */
function signInSession(
  config: ClientConfig,
  options: ClientOptions,
  deps: ApiClientDeps,
  { now, sleep, core }: Clocks & { core: () => RequestCore },
): SessionManager {
  return new SessionManager(
    {
      renewMarginMs: options.renewMarginMs,
      maxSignInsPerMinute: options.maxSignInsPerMinute,
      failureCooldownMs: options.signInFailureCooldownMs,
      maxWaitMs: options.maxWaitMs,
    },
    {
      signIn: (turns, signal) => core().signIn(config.keyId, config.secret, turns, signal),
      signOut: (token) => core().signOut(token),
      now,
      sleep,
      ...(deps.onSignInRefused ? { onSignInRefused: deps.onSignInRefused } : {}),
      ...(deps.onKeyAccepted ? { onSignIn: () => deps.onKeyAccepted?.(now()) } : {}),
      ...(deps.signInAllowance ? { allowance: deps.signInAllowance } : {}),
    },
  );
}

/** Every call's path: paced, signed in, cached, retried within the options' budget. */
function requestCore(
  config: ClientConfig,
  options: ClientOptions,
  deps: ApiClientDeps,
  parts: Clocks & { transport: Transport; pacer: Pacer; session: SessionManager; cache: ReadCache; logger: Logger },
): RequestCore {
  return new RequestCore(
    {
      maxRetries: options.maxRetries,
      retryBudgetMs: options.retryBudgetMs,
      backoff: { baseDelayMs: options.backoffBaseMs, maxDelayMs: options.backoffMaxMs },
      maxWaitMs: options.maxWaitMs,
    },
    { ...parts, keyId: config.keyId, random: deps.random ?? Math.random, onAccepted: deps.onKeyAccepted },
  );
}

/** What the service granted the session, or what the key tells before it has. */
function sessionInfo(session: SessionManager, mode: 'live' | 'test', keyId: string): SessionInfo {
  const grant = session.grant;
  return {
    mode: grant?.mode ?? mode,
    keyId: grant?.key_id ?? keyId,
    scopes: grant?.scopes ?? [],
    business: grant?.business ? { id: grant.business.id, name: grant.business.name } : null,
    expiresAt: session.expiresAt,
    serviceExpiresAt: grant?.expires_at ?? null,
  };
}

export function createApiClient(config: ClientConfig, deps: ApiClientDeps): ApiClient {
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  const problem = baseUrlProblem(new URL(baseUrl));
  if (problem) throw new Error(`The service base URL ${problem}.`);
  const mode = config.keyId.startsWith('svck_live_') ? 'live' : 'test';
  const options = resolveOptions(deps.options);
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? realSleep;
  const logger = deps.logger.child({ component: 'api' });
  const serviceClock = deps.serviceClock ?? new ServiceClock(now);
  const transport = new Transport(baseUrl, {
    serviceClock,
    dispatcher: deps.dispatcher,
    userAgent: options.userAgent,
    timeoutMs: options.requestTimeoutMs,
    connections: options.maxConcurrent === null ? null : Math.max(options.maxConcurrent, 1),
  });
  const holdListeners = new Set<(untilMs: number) => void>();
  const pacer = new Pacer({
    maxConcurrent: options.maxConcurrent,
    maxWaitMs: options.maxWaitMs,
    now,
    timers: deps.timers,
    onHeld: (untilMs) => {
      for (const listener of holdListeners) listener(untilMs);
    },
  });
  const cache = new ReadCache(`${config.keyId}|${mode}`, options.cache);
  let core: RequestCore;
  const session = signInSession(config, options, deps, { now, sleep, core: () => core });
  core = requestCore(config, options, deps, { transport, pacer, session, cache, logger, now, sleep });
  const invalidate = (kind: ResourceKind, id?: number | string): void => cache.invalidate(kind, id);
  const ping = decoder(PingSchema);
  let closed = false;

  return {
    baseUrl,
    keyId: config.keyId,
    mode,
    customers: customersApi(core, invalidate),
    invoices: invoicesApi(core, invalidate),
    quotes: quotesApi(core),
    payments: paymentsApi(core),
    products: productsApi(core),
    async ping(opts = {}) {
      return (await core.call({ method: 'GET', path: '/api/ping', decoder: ping, signal: opts.signal })).value;
    },
    async session(opts = {}) {
      await session.token(opts.signal);
      return sessionInfo(session, mode, config.keyId);
    },
    serviceClock,
    serviceNow: () => serviceClock.serviceNow(),
    serviceSince: () => serviceClock.firstHeard(),
    invalidate,
    clearCache: () => cache.clear(),
    stats: () => ({ cache: cache.stats(), rateLimit: pacer.state(), signIns: session.signIns }),
    estimateMs: (calls) => pacer.estimateMs(calls),
    rateLimitHold: {
      onHeld(listener) {
        holdListeners.add(listener);
        return () => holdListeners.delete(listener);
      },
      holdUntil: (untilMs) => pacer.holdUntil(untilMs),
    },
    async close() {
      if (closed) return;
      closed = true;
      // Sign-out never competes with the person: not while the key's window is held or spent.
      const window = pacer.state();
      pacer.close();
      await session.close(window.blockedUntil === 0 && window.remaining !== 0 && window.queued === 0);
      await transport.close();
    },
  };
}
