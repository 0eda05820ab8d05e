// The one request core. Every call goes: cache? -> pacing -> session -> undici -> zod. It owns the
// headers, retries (only reads and creates that carry an Idempotency-Key; on 5xx, resets and timeouts;
// exponential back-off with jitter inside a time budget), 429 waits, and one shared re-sign-in on 401
// followed by one replay.
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CacheMode, ReadCache } from './cache.js';
import { type CallPhase, errorFromResponse, parseRetryAfter, type RateLimited, UnexpectedResponse } from './errors.js';
import {
  type BackoffPolicy,
  backoffDelay,
  type HttpMethod,
  headerValue,
  mayRetryNoAnswer,
  neverSent,
  type Query,
  queryString,
  type ResponseHeaders,
  type Transport,
  type WireResponse,
} from './http.js';
import { currentLane, type Lane, type WorkLane } from './lane.js';
import { BACKGROUND_MAX_WAIT_MS, type Pacer, retryAfterSeconds } from './pacing.js';
import { type ResourceKind, type SessionGrant, SessionGrantSchema } from './schemas.js';
import type { SessionManager, SignInTurns } from './session.js';
import { type Decoder, decoder } from './validate.js';

export interface CoreOptions {
  /** Retries after the first attempt, on faults (5xx, no answer). */
  maxRetries: number;
  /** No retry starts later than this after the call began. */
  retryBudgetMs: number;
  backoff: BackoffPolicy;
  /** The longest a person's call waits on the rate limit (queue and 429s together). */
  maxWaitMs: number;
}

export interface CoreDeps {
  transport: Transport;
  pacer: Pacer;
  session: SessionManager;
  cache: ReadCache;
  logger: Logger;
  keyId: string;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told when the service accepted a call made with the key's session, and when that call was sent. */
  onAccepted?: ((sentAt: number) => void) | undefined;
}

export interface CallSpec<S extends z.ZodType> {
  method: HttpMethod;
  path: string;
  query?: Query | undefined;
  body?: unknown;
  decoder: Decoder<S>;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /** The pacer's background lane (see Pacer): after tool calls, one at a time, never into the reserve. */
  background?: boolean | undefined;
}

export interface CallResult<T> {
  value: T;
  status: number;
  headers: ResponseHeaders;
  size: number;
  attempts: number;
}

export interface ReadOptions {
  signal?: AbortSignal | undefined;
  cache?: CacheMode | undefined;
  /** A background read (the mirror's sync): the pacer's background lane; it never shares a cached read. */
  background?: boolean | undefined;
}

interface Attempted {
  method: string;
  path: string;
  attempts: number;
  idempotencyKey?: string | undefined;
}

/** The state of one logical call across its attempts. */
interface Run {
  started: number;
  body: string | undefined;
  retryable: boolean;
  facts: Attempted;
  faults: number;
  replayed: boolean;
  /** Whether any attempt may have reached the service (a create may then have been applied). */
  reached: boolean;
  lane: Lane;
  /** The work it is made for (a task's, whose lifetime bounds its waits, or a person's), told when it waits. */
  owner: WorkLane | undefined;
  /** The longest it may wait on the rate limit, from `started` (ms): the lane's bound. */
  waitBoundMs: number;
}

/** A person's plain call waits this long for the key's window at most, then is told when to retry. */
export const PERSON_WAIT_MS = 10_000;

export class RequestCore {
  readonly #o: CoreOptions;
  readonly #d: CoreDeps;
  readonly #inflight = new Map<string, Promise<object>>();
  readonly #grant = decoder(SessionGrantSchema);

  constructor(options: CoreOptions, deps: CoreDeps) {
    this.#o = options;
    this.#d = deps;
  }

  /** A GET through the cache; concurrent identical reads share one request. */
  async read<S extends z.ZodType<object>>(
    kind: ResourceKind,
    path: string,
    query: Query | undefined,
    decoder: Decoder<S>,
    options: ReadOptions = {},
  ): Promise<z.output<S>> {
    const { cache } = this.#d;
    const mode = options.cache ?? 'use';
    if (mode === 'skip' || !cache.enabled || options.background) {
      return (await this.call({ method: 'GET', path, query, decoder, signal: options.signal, background: options.background })).value;
    }
    const key = cache.key(kind, path, queryString(query));
    if (mode === 'use') {
      const hit = cache.get(key);
      if (hit !== undefined) return hit as z.output<S>;
      const shared = this.#inflight.get(key);
      if (shared) return (await raceSignal(shared, options.signal)) as z.output<S>;
    }
    const generation = cache.generation(kind);
    // The shared request runs without any one caller's signal: a caller that gives up only stops waiting.
    const request = this.call({ method: 'GET', path, query, decoder }).then((r) => {
      cache.set(kind, key, r.value, r.size, generation);
      return r.value;
    });
    this.#inflight.set(key, request);
    const cleanup = (): void => {
      if (this.#inflight.get(key) === request) this.#inflight.delete(key);
    };
    request.then(cleanup, cleanup);
    return (await raceSignal(request, options.signal)) as z.output<S>;
  }

  /** One logical call, with pacing, session, retries and validation. */
  async call<S extends z.ZodType>(spec: CallSpec<S>): Promise<CallResult<z.output<S>>> {
    const { session, logger } = this.#d;
    const run: Run = {
      started: this.#d.now(),
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      retryable: spec.method === 'GET' || spec.idempotencyKey !== undefined,
      facts: { method: spec.method, path: spec.path, attempts: 0, idempotencyKey: spec.idempotencyKey },
      faults: 0,
      replayed: false,
      reached: false,
      ...this.#laneOf(spec),
    };
    const where = { method: spec.method, path: spec.path };
    for (;;) {
      const answer = await this.#attempt(spec, run);
      if (!answer) continue;
      const { res, token, sentAt } = answer;
      if (res.status >= 200 && res.status < 300) {
        this.#d.onAccepted?.(sentAt);
        return this.#parse(spec.decoder, res, run.facts);
      }
      if (res.status === 401 && !run.replayed) {
        run.replayed = true;
        logger.info(where, 'session refused (401); signing in again and replaying once');
        await session.renewAfter(token, spec.signal);
        continue;
      }
      if (res.status === 429) {
        logger.info({ ...where, retryAfter: this.#rateLimitWait(res, run) }, 'rate limited (429); waiting');
        continue;
      }
      const delay = res.status >= 500 ? this.#retryDelay(++run.faults, run.started, run.retryable, res.headers) : null;
      if (delay !== null) {
        logger.warn({ ...where, status: res.status, attempt: run.facts.attempts, delayMs: delay }, 'service fault; retrying');
        await this.#d.sleep(delay, spec.signal);
        continue;
      }
      const phase: CallPhase = res.status === 401 ? 'replay' : 'call';
      throw errorFromResponse(res, { ...run.facts, phase, now: this.#d.now() });
    }
  }

  /** Whose call it is, and how long it may wait on the key's limit: a task's until its end, the background's long. */
  #laneOf(spec: { background?: boolean | undefined }): Pick<Run, 'lane' | 'owner' | 'waitBoundMs'> {
    if (spec.background) return { lane: 'background', owner: undefined, waitBoundMs: BACKGROUND_MAX_WAIT_MS };
    const owner = currentLane();
    if (owner?.taskDeadlineMs !== undefined) return { lane: 'task', owner, waitBoundMs: Math.max(0, owner.taskDeadlineMs - this.#d.now()) };
    return { lane: 'person', owner, waitBoundMs: Math.min(this.#o.maxWaitMs, PERSON_WAIT_MS) };
  }

  /**
   * One request: a turn from the pacer, a token, the wire. Null after a failure with no answer that is
   * to be retried (the back-off already slept); a NetworkFault when it is not.
   */
  async #attempt<S extends z.ZodType>(spec: CallSpec<S>, run: Run): Promise<{ res: WireResponse; token: string; sentAt: number } | null> {
    const { pacer, session, transport, logger } = this.#d;
    const { owner } = run;
    const slot = await pacer.acquire({
      signal: spec.signal,
      front: run.facts.attempts > 0,
      lane: run.lane,
      maxWaitMs: Math.max(0, run.started + run.waitBoundMs - this.#d.now()),
      ...(owner ? { onWait: (untilMs: number) => owner.waiting(untilMs - this.#d.now(), pacer.pace()) } : {}),
    });
    let token: string;
    try {
      token = await session.token(spec.signal);
    } catch (err) {
      slot.release();
      throw err;
    }
    run.facts.attempts++;
    const sentAt = this.#d.now();
    const t0 = performance.now();
    const headers = this.#headers(token, spec.idempotencyKey);
    if (logger.isLevelEnabled('trace')) logger.trace({ method: spec.method, path: spec.path, query: spec.query, headers }, 'request');
    let res: WireResponse;
    try {
      res = await transport.send({ method: spec.method, path: spec.path, query: spec.query, headers, body: run.body, signal: spec.signal });
    } catch (err) {
      slot.release();
      if (spec.signal?.aborted) throw spec.signal.reason;
      if (!neverSent(err)) run.reached = true;
      const faults = ++run.faults;
      const delay = this.#retryDelay(faults, run.started, run.retryable && mayRetryNoAnswer(err, faults), undefined);
      if (delay === null) throw transport.networkFault(err, { ...run.facts, reached: run.reached });
      logger.warn(
        { method: spec.method, path: spec.path, attempt: run.facts.attempts, delayMs: delay, err },
        'no answer from the service; retrying',
      );
      await this.#d.sleep(delay, spec.signal);
      return null;
    }
    slot.release(res);
    run.reached = true;
    if (logger.isLevelEnabled('debug')) {
      logger.debug(
        { method: spec.method, path: spec.path, status: res.status, ms: Math.round(performance.now() - t0), attempt: run.facts.attempts },
        'service call',
      );
    }
    return { res, token, sentAt };
  }

  /** The sign-in request: no pacing or session; retried on faults; a 429 waits when it can. */
  async signIn(keyId: string, secret: string, turns: SignInTurns, signal?: AbortSignal): Promise<SessionGrant> {
    const started = this.#d.now();
    const facts: Attempted = { method: 'POST', path: '/api/v1/auth/token', attempts: 0 };
    const body = JSON.stringify({ key_id: keyId, secret });
    let faults = 0;
    for (;;) {
      await turns.before();
      facts.attempts++;
      let res: WireResponse;
      try {
        res = await this.#d.transport.send({ method: 'POST', path: facts.path, headers: {}, body, signal });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const delay = this.#retryDelay(++faults, started, mayRetryNoAnswer(err, faults), undefined);
        if (delay === null) throw this.#d.transport.networkFault(err, facts);
        this.#d.logger.warn({ attempt: facts.attempts, delayMs: delay, err }, 'no answer to the sign-in; retrying');
        await this.#d.sleep(delay, signal);
        continue;
      }
      turns.answered();
      if (res.status >= 200 && res.status < 300) {
        const grant = this.#parse(this.#grant, res, facts).value;
        this.#d.logger.info({ keyId, mode: grant.mode, business: grant.business, scopes: grant.scopes }, 'signed in');
        return grant;
      }
      if (res.status === 429) {
        const error = errorFromResponse(res, { ...facts, phase: 'sign-in', now: this.#d.now() }) as RateLimited;
        if (this.#d.now() + error.retryAfter * 1000 - started > this.#o.maxWaitMs) throw error;
        await this.#d.sleep(error.retryAfter * 1000, signal);
        continue;
      }
      if (res.status >= 500) {
        const delay = this.#retryDelay(++faults, started, true, res.headers);
        if (delay !== null) {
          await this.#d.sleep(delay, signal);
          continue;
        }
      }
      throw errorFromResponse(res, { ...facts, phase: 'sign-in', now: this.#d.now() });
    }
  }

  /** Ends a session (best effort, one attempt, short timeout). */
  async signOut(token: string): Promise<void> {
    await this.#d.transport.send({
      method: 'DELETE',
      path: '/api/v1/auth/token',
      headers: this.#headers(token, undefined),
      timeoutMs: 2000,
    });
  }

  #headers(token: string, idempotencyKey: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-service-key': this.#d.keyId };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return headers;
  }

  /** Retry-After (the pacer holds the queue for it), or RateLimited when that exceeds the call's bound. */
  #rateLimitWait(res: WireResponse, run: Run): number {
    const now = this.#d.now();
    const retryAfter = retryAfterSeconds(res.headers, now);
    if (now + retryAfter * 1000 - run.started > run.waitBoundMs) throw errorFromResponse(res, { ...run.facts, now });
    run.owner?.waiting(retryAfter * 1000, this.#d.pacer.pace());
    return retryAfter;
  }

  /** The delay before retry number `n`, or null when no retry is allowed (kind, count or budget). */
  #retryDelay(n: number, started: number, allowed: boolean, headers: ResponseHeaders | undefined): number | null {
    if (!allowed || n > this.#o.maxRetries) return null;
    let delay = backoffDelay(n, this.#o.backoff, this.#d.random);
    const hinted = headers ? parseRetryAfter(headerValue(headers, 'retry-after'), this.#d.now()) : null;
    if (hinted !== null) delay = Math.max(delay, hinted * 1000);
    if (this.#d.now() + delay - started > this.#o.retryBudgetMs) return null;
    return delay;
  }

  #parse<S extends z.ZodType>(decoder: Decoder<S>, res: WireResponse, facts: Attempted): CallResult<z.output<S>> {
    const created =
      facts.method === 'POST' && facts.idempotencyKey
        ? ` The record was probably created: retry with the same idempotency key (${facts.idempotencyKey}) to read it back without creating it twice.`
        : '';
    if (res.unreadable) {
      throw new UnexpectedResponse(
        `The service answered ${facts.method} ${facts.path} (HTTP ${res.status}) with a body that is not JSON.${created}`,
        { ...facts, status: res.status },
      );
    }
    const decoded = decoder.decode(res.body);
    if (!decoded.ok) {
      throw new UnexpectedResponse(
        `The service's answer to ${facts.method} ${facts.path} does not have the documented shape (${decoded.path}: ${decoded.message}).${created}`,
        { ...facts, status: res.status },
      );
    }
    return { value: decoded.value, status: res.status, headers: res.headers, size: res.size, attempts: facts.attempts };
  }
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
