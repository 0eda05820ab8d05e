// The per-key call budget, learnt from the service's own headers (X-RateLimit-Limit / -Remaining and
// Retry-After), never from a hard-coded figure. Calls wait in one FIFO queue; when the budget reads empty
// a single call goes ahead as a probe (a fresh window answers it, or a 429 tells how long to wait).
// A call that would wait longer than its bound is refused with RateLimited saying when to retry.
// Background calls (the mirror's sync) wait in a lane of their own: they start only when no other call
// waits, one at a time, and never into the last tenth of the window's calls, so a tool call waits behind
// at most one of them and never meets a 429 they caused.
import { counted } from './counted.js';
import { parseRetryAfter, RateLimited } from './errors.js';
import { headerValue, type ResponseHeaders } from './http.js';
import { REAL_TIMERS, type Timers } from './timers.js';

export interface PacerOptions {
  /**
   * Calls in flight at once, whatever the budget says; null to follow the key's budget alone: one call
   * until the service's first answer states its calls per window, then at most that many
   * (UNSTATED_LIMIT_CONCURRENCY if it answers without stating them).
   */
  maxConcurrent: number | null;
  /** The longest a call may wait for its turn. */
  maxWaitMs: number;
  now: () => number;
  /** The service's rate window (ms): a budget figure older than this is stale. Default 60 s. */
  windowMs?: number;
  /** Real timers unless given. */
  timers?: Timers;
  /** Told when a 429 of this key's makes the pacer hold its calls (until then, epoch ms). */
  onHeld?: (untilMs: number) => void;
}

export interface RateLimitState {
  /** From X-RateLimit-Limit; null until the service has said. */
  limit: number | null;
  /** From X-RateLimit-Remaining, corrected for calls in flight; null until the service has said. */
  remaining: number | null;
  inFlight: number;
  queued: number;
  /** Epoch ms until which calls are held after a 429; 0 when not held. */
  blockedUntil: number;
  /** Calls of the background lane waiting and in flight. */
  background?: { queued: number; inFlight: number };
  /** Calls other than background ones started so far (a running count). */
  foregroundStarted?: number;
}

/** A turn to make one request; release it exactly once, with the answer's headers when there was one. */
export interface Slot {
  release(answer?: { status: number; headers: ResponseHeaders }): void;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (err: unknown) => void;
  deadline: number;
  timer: unknown;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** Retries and replays keep their place at the head of the queue. */
  front?: boolean;
  /** Overrides the bound for this call (ms). */
  maxWaitMs?: number;
  /** The background lane: after every other waiting call, one at a time, never into the reserve. */
  background?: boolean;
}

/** How long a background call may wait for its turn: tool calls may keep the key busy for minutes. */
const BACKGROUND_MAX_WAIT_MS = 15 * 60_000;
/** While the budget reads as too low for background calls, look again this often. */
const BACKGROUND_RECHECK_MS = 1_000;

function intHeader(headers: ResponseHeaders, name: string): number | null {
  const text = headerValue(headers, name);
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return null;
  return Number(text);
}

/** Retry-After of a 429 in whole seconds, at least 1 (1 when absent). */
export function retryAfterSeconds(headers: ResponseHeaders, now: number): number {
  return Math.max(1, parseRetryAfter(headerValue(headers, 'retry-after'), now) ?? 1);
}

/** Calls in flight with no cap set when the service answers without stating its limit. */
export const UNSTATED_LIMIT_CONCURRENCY = 8;

export class Pacer {
  readonly #options: PacerOptions;
  readonly #queue: Waiter[] = [];
  readonly #backgroundQueue: Waiter[] = [];
  #backgroundInFlight = 0;
  #foregroundStarted = 0;
  /** When X-RateLimit-Remaining was last learnt (ms). */
  #learntAt = 0;
  #recheckTimer: unknown = null;
  #limit: number | null = null;
  #remaining: number | null = null;
  #inFlight = 0;
  #blockedUntil = 0;
  #answered = false;
  #wakeTimer: unknown = null;
  #closed = false;
  readonly #timers: Timers;

  constructor(options: PacerOptions) {
    this.#options = options;
    this.#timers = options.timers ?? REAL_TIMERS;
  }

  state(): RateLimitState {
    return {
      limit: this.#limit,
      remaining: this.#remaining === null ? null : Math.max(0, this.#remaining - this.#inFlight),
      inFlight: this.#inFlight,
      queued: this.#queue.length,
      blockedUntil: this.#blockedUntil > this.#options.now() ? this.#blockedUntil : 0,
      background: { queued: this.#backgroundQueue.length, inFlight: this.#backgroundInFlight },
      foregroundStarted: this.#foregroundStarted,
    };
  }

  acquire(options: AcquireOptions = {}): Promise<Slot> {
    if (this.#closed) return Promise.reject(new Error('the client is closed'));
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const now = this.#options.now();
    const background = options.background === true;
    const deadline = now + (options.maxWaitMs ?? (background ? BACKGROUND_MAX_WAIT_MS : this.#options.maxWaitMs));
    if (this.#blockedUntil > deadline) return Promise.reject(this.#tooLong(now));
    if (background) return this.#enqueue(this.#backgroundQueue, options, deadline, now);
    if (this.#queue.length === 0 && this.#canStart(now)) return Promise.resolve(this.#start(false));
    return this.#enqueue(this.#queue, options, deadline, now);
  }

  #enqueue(queue: Waiter[], options: AcquireOptions, deadline: number, now: number): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, deadline, timer: null, signal: options.signal, onAbort: null };
      waiter.timer = this.#timers.set(() => this.#expire(waiter), Math.max(0, deadline - now));
      if (options.signal) {
        waiter.onAbort = () => this.#drop(waiter, options.signal?.reason);
        options.signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      if (options.front) queue.unshift(waiter);
      else queue.push(waiter);
      this.#pump();
    });
  }

  /** After a 429: hold every call until the service's window reopens. */
  holdFor(seconds: number): void {
    this.holdUntil(this.#options.now() + Math.max(0, seconds) * 1000);
  }

  /** Holds every call until `untilMs` (epoch ms): a 429 met here, or by another process on the same key. */
  holdUntil(untilMs: number): void {
    if (untilMs <= this.#options.now()) return;
    if (untilMs > this.#blockedUntil) this.#blockedUntil = untilMs;
    this.#remaining = 0;
    this.#schedule();
  }

  /** Rejects every waiting call (shutdown). */
  close(): void {
    this.#closed = true;
    if (this.#wakeTimer) this.#timers.clear(this.#wakeTimer);
    if (this.#recheckTimer) this.#timers.clear(this.#recheckTimer);
    for (const w of [...this.#queue.splice(0), ...this.#backgroundQueue.splice(0)])
      this.#settle(w, () => w.reject(new Error('the client is closed')));
  }

  #canStart(now: number): boolean {
    if (now < this.#blockedUntil) return false;
    if (this.#inFlight >= this.#concurrency()) return false;
    if (this.#remaining === null) return true;
    // With the budget read as spent, one call at a time goes as a probe.
    return this.#remaining - this.#inFlight > 0 || this.#inFlight === 0;
  }

  /** A background call: nothing else waiting, none of its own in flight, and more than the reserve left. */
  #canStartBackground(now: number): boolean {
    if (this.#queue.length > 0 || this.#backgroundInFlight > 0 || !this.#canStart(now)) return false;
    if (this.#remaining === null || this.#limit === null) return this.#inFlight === 0;
    // A figure older than a window says nothing of the window now open: one call goes to learn it.
    if (now - this.#learntAt >= (this.#options.windowMs ?? 60_000)) return this.#inFlight === 0;
    return this.#remaining - this.#inFlight > Math.ceil(this.#limit / 10);
  }

  /** The cap if one is set; else the key's stated limit, one call until the first answer states it. */
  #concurrency(): number {
    if (this.#options.maxConcurrent !== null) return this.#options.maxConcurrent;
    if (this.#limit !== null) return this.#limit;
    return this.#answered ? UNSTATED_LIMIT_CONCURRENCY : 1;
  }

  #start(background: boolean): Slot {
    this.#inFlight++;
    if (background) this.#backgroundInFlight++;
    else this.#foregroundStarted++;
    let released = false;
    return {
      release: (answer) => {
        if (released) return;
        released = true;
        // Learnt while this call still counts as in flight: see #learn.
        if (answer) {
          this.#answered = true;
          this.#learn(answer.headers);
        }
        if (answer?.status === 429) {
          this.holdFor(retryAfterSeconds(answer.headers, this.#options.now()));
          this.#options.onHeld?.(this.#blockedUntil);
        }
        this.#inFlight--;
        if (background) this.#backgroundInFlight--;
        this.#pump();
      },
    };
  }

  #learn(headers: ResponseHeaders): void {
    const limit = intHeader(headers, 'x-ratelimit-limit');
    if (limit !== null && limit > 0) this.#limit = limit;
    const remaining = intHeader(headers, 'x-ratelimit-remaining');
    if (remaining === null) return;
    this.#learntAt = this.#options.now();
    // Answers can arrive out of order: a figure higher than ours counts only when the calls in flight
    // (this one included) cannot explain it, that is when a new window has begun.
    if (this.#remaining === null || remaining <= this.#remaining || remaining > this.#remaining + this.#inFlight) {
      this.#remaining = remaining;
    }
  }

  #pump(): void {
    const now = this.#options.now();
    while (this.#queue.length > 0 && this.#canStart(now)) {
      const w = this.#queue.shift() as Waiter;
      this.#settle(w, () => w.resolve(this.#start(false)));
    }
    if (this.#backgroundQueue.length > 0 && this.#canStartBackground(now)) {
      const w = this.#backgroundQueue.shift() as Waiter;
      this.#settle(w, () => w.resolve(this.#start(true)));
    }
    this.#schedule();
    this.#scheduleRecheck();
  }

  /** Background calls held back by the reserve start once the window has turned, with or without other calls. */
  #scheduleRecheck(): void {
    if (this.#recheckTimer || this.#backgroundQueue.length === 0 || this.#closed) return;
    this.#recheckTimer = this.#timers.set(
      () => {
        this.#recheckTimer = null;
        this.#pump();
      },
      BACKGROUND_RECHECK_MS,
      true,
    );
  }

  #schedule(): void {
    if (this.#wakeTimer || this.#queue.length === 0) return;
    const wait = this.#blockedUntil - this.#options.now();
    if (wait <= 0) return;
    this.#wakeTimer = this.#timers.set(() => {
      this.#wakeTimer = null;
      this.#pump();
    }, wait);
  }

  #expire(w: Waiter): void {
    this.#pump(); // its turn may have come at this very moment
    const queue = this.#queue.includes(w) ? this.#queue : this.#backgroundQueue;
    const i = queue.indexOf(w);
    if (i < 0) return;
    queue.splice(i, 1);
    this.#settle(w, () => w.reject(this.#tooLong(this.#options.now())));
  }

  #drop(w: Waiter, reason: unknown): void {
    const queue = this.#queue.includes(w) ? this.#queue : this.#backgroundQueue;
    const i = queue.indexOf(w);
    if (i < 0) return;
    queue.splice(i, 1);
    this.#settle(w, () => w.reject(reason));
    this.#pump();
  }

  #settle(w: Waiter, act: () => void): void {
    if (w.timer) this.#timers.clear(w.timer);
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    act();
  }

  #tooLong(now: number): RateLimited {
    const retryAfter = Math.max(1, Math.ceil((this.#blockedUntil - now) / 1000));
    const bound = Math.round(this.#options.maxWaitMs / 1000);
    return new RateLimited(
      `The call would wait more than ${bound} s for the service's rate limit (${this.#limit ?? 'unknown'} calls per window for this key). Retry after ${counted(retryAfter, 'second')}.`,
      retryAfter,
      { status: null },
    );
  }
}
