// The session: signs in lazily and once for any number of concurrent callers, renews before expiry and
// after a 401, and signs out on shutdown. Sign-ins are throttled (the service allows 10 a minute per
// address): a refused sign-in is remembered for a cool-down, and no more than a few answered sign-ins
// happen a minute. An attempt that got no answer (refused connection, reset, time-out) never reached the
// service's limit, so it does not count: it is retried with back-off inside the retry budget, and a
// service that cannot be reached is reported as such, never as our own throttle.
import { counted } from '../core/counted.js';
import { type ApiError, Forbidden, RateLimited, Unauthorized } from './errors.js';
import type { SessionGrant } from './schemas.js';

export interface SessionOptions {
  /** Sign in again when the session has less than this left. */
  renewMarginMs: number;
  /** Answered sign-in requests (retries included) allowed in any 60 seconds; the service allows 10 per address. */
  maxSignInsPerMinute: number;
  /** After a refused sign-in (401/403), calls fail at once for this long instead of signing in again. */
  failureCooldownMs: number;
  /** The longest a call waits for the sign-in throttle. */
  maxWaitMs: number;
}

/** The hooks a sign-in calls around each of its requests, so the throttle sees every attempt. */
export interface SignInTurns {
  /** Waits until another request fits in the per-minute allowance (or refuses). */
  before(): Promise<void>;
  /** The service answered the request (any status): it counts toward the allowance. */
  answered(): void;
}

export interface SessionDeps {
  /** Performs the sign-in (with its own retries on faults), calling `turns` around each request. */
  signIn: (turns: SignInTurns, signal?: AbortSignal) => Promise<SessionGrant>;
  signOut: (token: string) => Promise<void>;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onSignIn?: (grant: SessionGrant) => void;
  /** A sign-in allowance shared beyond this client (a hosted deployment's): waited for, or refused with RateLimited. */
  allowance?: () => Promise<void>;
  /** The service refused a sign-in with 401 or 403: the key no longer works as it is. */
  onSignInRefused?: (error: Unauthorized | Forbidden) => void;
}

interface Current {
  token: string;
  expiresAt: number;
  grant: SessionGrant;
}

const MINUTE_MS = 60_000;
const DEFAULT_LIFETIME_S = 3600;

export class SessionManager {
  readonly #options: SessionOptions;
  readonly #deps: SessionDeps;
  #current: Current | null = null;
  #pending: Promise<Current> | null = null;
  #attempts: number[] = [];
  #failure: { error: ApiError; at: number } | null = null;
  #signIns = 0;

  constructor(options: SessionOptions, deps: SessionDeps) {
    this.#options = options;
    this.#deps = deps;
  }

  /** The grant of the current session (mode, scopes, business), or null before the first sign-in. */
  get grant(): SessionGrant | null {
    return this.#current?.grant ?? null;
  }

  get expiresAt(): number | null {
    return this.#current?.expiresAt ?? null;
  }

  /** Sign-in requests the service answered so far (retries included). */
  get signIns(): number {
    return this.#signIns;
  }

  /** A token valid for a while yet: the current one, or a fresh one from a (shared) sign-in. */
  async token(signal?: AbortSignal): Promise<string> {
    const c = this.#current;
    if (c && this.#deps.now() < c.expiresAt - this.#options.renewMarginMs) return c.token;
    return (await this.#signInOnce(signal)).token;
  }

  /** After a 401 with `rejected`: a new token, shared by every call that saw the same 401. */
  async renewAfter(rejected: string, signal?: AbortSignal): Promise<string> {
    const c = this.#current;
    if (c && c.token !== rejected) return c.token;
    if (c && c.token === rejected) this.#current = null;
    return (await this.#signInOnce(signal)).token;
  }

  /**
   * Ends the session at the service (best effort) and forgets it; with `signOut` false only forgets it (the
   * key's window is spent: a sign-out would take a call from the person, and the session expires by itself).
   */
  async close(signOut = true): Promise<void> {
    const c = this.#current;
    this.#current = null;
    if (c && signOut) await this.#deps.signOut(c.token).catch(() => undefined);
  }

  #signInOnce(signal?: AbortSignal): Promise<Current> {
    if (!this.#pending) {
      this.#pending = this.#signIn().finally(() => {
        this.#pending = null;
      });
      // Every waiter may have given up (a client that left) before a refusal arrives: that is no crash.
      this.#pending.catch(() => undefined);
    }
    const pending = this.#pending;
    if (!signal) return pending;
    // A caller that gives up does not cancel the shared sign-in; it only stops waiting for it.
    return new Promise<Current>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async #signIn(): Promise<Current> {
    const now = this.#deps.now();
    const failure = this.#failure;
    if (failure && now - failure.at < this.#options.failureCooldownMs) throw failure.error;
    try {
      const grant = await this.#deps.signIn({ before: () => this.#roomForAttempt(), answered: () => this.#countAnswered() });
      const lifetimeS = typeof grant.expires_in === 'number' ? grant.expires_in : DEFAULT_LIFETIME_S;
      const current = { token: grant.access_token, expiresAt: now + lifetimeS * 1000, grant };
      this.#current = current;
      this.#failure = null;
      this.#deps.onSignIn?.(grant);
      return current;
    } catch (err) {
      if (err instanceof Unauthorized || err instanceof Forbidden) {
        this.#failure = { error: err, at: this.#deps.now() };
        this.#deps.onSignInRefused?.(err);
      }
      throw err;
    }
  }

  #countAnswered(): void {
    this.#attempts.push(this.#deps.now());
    this.#signIns++;
  }

  async #roomForAttempt(): Promise<void> {
    const now = this.#deps.now();
    this.#attempts = this.#attempts.filter((t) => now - t < MINUTE_MS);
    if (this.#attempts.length < this.#options.maxSignInsPerMinute) return this.#deps.allowance?.();
    const wait = (this.#attempts[0] as number) + MINUTE_MS - now;
    if (wait > this.#options.maxWaitMs) {
      const retryAfter = Math.ceil(wait / 1000);
      throw new RateLimited(
        `The service answered ${counted(this.#attempts.length, 'sign-in')} in the last minute; not signing in again yet, to stay inside the service's sign-in limit. Retry after ${counted(retryAfter, 'second')}.`,
        retryAfter,
      );
    }
    await this.#deps.sleep(wait);
    await this.#deps.allowance?.();
  }
}
