// How fast the mirror may call in the background. The key's limit is shared with tool calls and tasks, which go
// first (the pacer's lanes). From X-RateLimit-Limit: a quarter of the window's calls while they use the key,
// nine tenths when they do not (the pacer keeps the last fifth free for them either way), spread evenly over
// the window the pacer learnt rather than spent at its start.
import type { ApiClient } from '../api/client.js';
import { sleep } from '../core/timers.js';

export interface BudgetOptions {
  windowMs?: number;
  /** Share of the limit while tool calls use the key. */
  busyShare?: number;
  /** Share of the limit, at most, while they do not. */
  idleShare?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class BackgroundBudget {
  /** Given, or else the window's length as the key's pacer has learnt it. */
  readonly #windowMs: number | undefined;
  readonly #busyShare: number;
  readonly #idleShare: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #last = -Infinity;
  /** Foreground starts seen, and when: tool calls are "using the key" if any started within a window. */
  #foreground = 0;
  #foregroundAt = -Infinity;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ApiClient,
    options: BudgetOptions = {},
  ) {
    this.#windowMs = options.windowMs;
    this.#busyShare = options.busyShare ?? 0.25;
    this.#idleShare = options.idleShare ?? 0.9;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? sleep;
  }

  /** The service's rate window (ms). */
  get windowMs(): number {
    return this.#windowMs ?? this.api.stats().rateLimit.windowMs ?? 60_000;
  }

  /** Background calls allowed per window now; null until the service has told its limit. */
  allowance(): number | null {
    const state = this.api.stats().rateLimit;
    const started = state.foregroundStarted ?? 0;
    const now = this.#now();
    if (started !== this.#foreground) {
      this.#foreground = started;
      this.#foregroundAt = now;
    }
    if (state.limit === null) return null;
    const busy = now - this.#foregroundAt < this.windowMs;
    const share = busy ? this.#busyShare : this.#idleShare;
    return Math.max(1, Math.floor(share * state.limit));
  }

  /** Background calls allowed per window while tool calls use the key; null until the service has told its limit. */
  busyAllowance(): number | null {
    const limit = this.api.stats().rateLimit.limit;
    return limit === null ? null : Math.max(1, Math.floor(this.#busyShare * limit));
  }

  /** The gap between two background calls, evenly spread (ms). */
  spacingMs(): number {
    const allowance = this.allowance();
    return allowance === null ? 0 : Math.ceil(this.windowMs / allowance);
  }

  /** Waits for the next background call's turn; turns are taken one at a time, in order. */
  turn(signal?: AbortSignal): Promise<void> {
    const mine = this.#queue.then(async () => {
      const wait = this.#last + this.spacingMs() - this.#now();
      if (wait > 0) await this.#sleep(wait, signal);
      this.#last = this.#now();
    });
    this.#queue = mine.catch(() => undefined);
    return mine;
  }
}
