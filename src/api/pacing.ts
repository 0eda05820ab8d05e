// The key's one budget, learnt from the service's own headers (X-RateLimit-Limit / -Remaining, Retry-After):
// every call waits its turn in one of three lanes, a person's first, then tasks', then the background's.
import { counted } from '../core/counted.js';
import { REAL_TIMERS, type Timers } from '../core/timers.js';
import { parseRetryAfter, RateLimited } from './errors.js';
import { headerValue, type ResponseHeaders } from './http.js';
import type { KeyPace, Lane } from './lane.js';

export interface PacerOptions {
  /**
   * Calls in flight at once, whatever the budget says; null to follow the key's budget alone: one call
   * until the service's first answer states its calls per window, then at most that many
   * (UNSTATED_LIMIT_CONCURRENCY if it answers without stating them).
   */
  maxConcurrent: number | null;
  /** The longest a person's call may wait for its turn. */
  maxWaitMs: number;
  now: () => number;
  /** The service's rate window (ms), when known beforehand; else learnt from the first 429 (60 s until then). */
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
  /** Calls waiting, every lane. */
  queued: number;
  /** Epoch ms until which calls are held after a 429; 0 when not held. */
  blockedUntil: number;
  /** Epoch ms by which the window now open has surely ended; 0 when not known. */
  resetAt?: number;
  /** The window's length (ms), as far as known. */
  windowMs?: number;
  /** Calls of the background lane waiting and in flight. */
  background?: { queued: number; inFlight: number };
  /** Calls other than background ones started so far (a running count). */
  foregroundStarted?: number;
  /** Calls each lane started in the window now open, as far as this process saw it. */
  thisWindow?: Record<Lane, number>;
}

/** A turn to make one request; release it exactly once, with the answer's headers when there was one. */
export interface Slot {
  release(answer?: { status: number; headers: ResponseHeaders }): void;
}

interface Waiter {
  lane: Lane;
  /** How long it may wait (ms), and until when. */
  bound: number;
  resolve: (slot: Slot) => void;
  reject: (err: unknown) => void;
  deadline: number;
  timer: unknown;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
  onWait: ((untilMs: number) => void) | undefined;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** Retries and replays keep their place at the head of their lane. */
  front?: boolean;
  /** Overrides the bound for this call (ms). */
  maxWaitMs?: number;
  /** The call's lane; a person's unless given (`background: true` is the background lane). */
  lane?: Lane;
  background?: boolean;
  /** Told, when the call has to wait for the window to reopen, until when (epoch ms). */
  onWait?: (untilMs: number) => void;
}

/** How long a background call may wait for its turn: tool calls may keep the key busy for minutes. */
export const BACKGROUND_MAX_WAIT_MS = 15 * 60_000;
/** While the budget reads as too low for background calls, look again this often. */
const BACKGROUND_RECHECK_MS = 1_000;
/** The window's length until the service has told it (the documented minute). */
const DEFAULT_WINDOW_MS = 60_000;
/** Past the reset as computed, this much more before a call goes: the two clocks' reading of it differ by a hair. */
const RESET_MARGIN_MS = 50;
const LANES: readonly Lane[] = ['person', 'task', 'background'];

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

const perLane = (): Record<Lane, number> => ({ person: 0, task: 0, background: 0 });

/**
 * The background goes one call at a time and never into the last fifth of the window; tasks leave the last
 * tenth to the person until the window's end is near. The window's reset is known from the call that opened
 * it (its answer says limit - 1) and the window's length (from a 429's Retry-After, or two windows' openings);
 * past it one call goes first to learn the new window. While the reset is not known and the window reads
 * spent, one call goes as a probe: at most one 429 a window.
 */
export class Pacer {
  readonly #options: PacerOptions;
  readonly #queues: Record<Lane, Waiter[]> = { person: [], task: [], background: [] };
  readonly #laneInFlight = perLane();
  #thisWindow = perLane();
  #foregroundStarted = 0;
  /** When X-RateLimit-Remaining was last learnt (ms). */
  #learntAt = 0;
  #limit: number | null = null;
  #remaining: number | null = null;
  #inFlight = 0;
  #blockedUntil = 0;
  /** When the window now open surely ends (0: not known). */
  #resetAt = 0;
  /** When the call that opened the window was sent (the window opened between then and its answer). */
  #openedSentAt = 0;
  #windowMs: number;
  #windowKnown: boolean;
  /** How long a call takes, smoothed (ms). */
  #callMs = 100;
  #answered = false;
  #wakeTimer: unknown = null;
  #wakeAt = 0;
  #closed = false;
  readonly #timers: Timers;

  constructor(options: PacerOptions) {
    this.#options = options;
    this.#timers = options.timers ?? REAL_TIMERS;
    this.#windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.#windowKnown = options.windowMs !== undefined;
  }

  state(): RateLimitState {
    const now = this.#options.now();
    return {
      limit: this.#limit,
      remaining: this.#remaining === null ? null : Math.max(0, this.#remaining - this.#inFlight),
      inFlight: this.#inFlight,
      queued: LANES.reduce((n, lane) => n + this.#queues[lane].length, 0),
      blockedUntil: this.#blockedUntil > now ? this.#blockedUntil : 0,
      resetAt: this.#resetAt > now ? this.#resetAt : 0,
      windowMs: this.#windowMs,
      background: { queued: this.#queues.background.length, inFlight: this.#laneInFlight.background },
      foregroundStarted: this.#foregroundStarted,
      thisWindow: { ...this.#thisWindow },
    };
  }

  /** The key's calls per window, as the service stated them. */
  pace(): KeyPace {
    return { limit: this.#limit, windowMs: this.#windowMs };
  }

  /**
   * About how long `calls` more calls of a task take from now (ms): the calls the window still has go at the
   * pace calls take; the rest wait for the windows that follow. Null until the service has stated its limit.
   */
  estimateMs(calls: number): number | null {
    const limit = this.#limit;
    if (limit === null || this.#remaining === null) return null;
    const now = this.#options.now();
    const held = Math.max(0, this.#blockedUntil - now);
    const free = this.#stale(now) ? limit : Math.max(0, this.#remaining - this.#inFlight);
    const going = (n: number): number => Math.ceil((n * this.#callMs) / 4);
    if (calls <= free) return held + going(calls);
    const rest = calls - free;
    const untilReset = Math.max(held, (this.#resetAt > now ? this.#resetAt : now + this.#windowMs) - now);
    const moreWindows = Math.ceil(rest / limit) - 1;
    return untilReset + moreWindows * this.#windowMs + going(rest - moreWindows * limit);
  }

  acquire(options: AcquireOptions = {}): Promise<Slot> {
    if (this.#closed) return Promise.reject(new Error('the client is closed'));
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const now = this.#options.now();
    const lane: Lane = options.lane ?? (options.background ? 'background' : 'person');
    const bound = options.maxWaitMs ?? (lane === 'background' ? BACKGROUND_MAX_WAIT_MS : this.#options.maxWaitMs);
    const deadline = now + bound;
    if (this.#blockedUntil > deadline) return Promise.reject(this.#tooLong(now, bound));
    if (this.#nothingBefore(lane) && this.#canStart(lane, now)) return Promise.resolve(this.#start(lane));
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = {
        lane,
        bound,
        resolve,
        reject,
        deadline,
        timer: null,
        signal: options.signal,
        onAbort: null,
        onWait: options.onWait,
      };
      waiter.timer = this.#timers.set(() => this.#expire(waiter), Math.max(0, deadline - now));
      if (options.signal) {
        waiter.onAbort = () => this.#drop(waiter, options.signal?.reason);
        options.signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      if (options.front) this.#queues[lane].unshift(waiter);
      else this.#queues[lane].push(waiter);
      this.#pump();
      if (this.#queues[lane].includes(waiter)) this.#tellWait(waiter, now);
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
    // The window has turned by the time the hold ends: the first call then learns the new one.
    this.#resetAt = Math.max(this.#resetAt, this.#blockedUntil);
    this.#remaining = 0;
    this.#pump();
  }

  /** Rejects every waiting call (shutdown). */
  close(): void {
    this.#closed = true;
    if (this.#wakeTimer) this.#timers.clear(this.#wakeTimer);
    for (const lane of LANES)
      for (const w of this.#queues[lane].splice(0)) this.#settle(w, () => w.reject(new Error('the client is closed')));
  }

  /** Whether the window's figure says nothing of the window now open (it has surely turned, or is a window old). */
  #stale(now: number): boolean {
    if (this.#resetAt > 0 && now >= this.#resetAt + RESET_MARGIN_MS) return this.#learntAt < this.#resetAt;
    return now - this.#learntAt >= this.#windowMs;
  }

  /** No call of this lane or an earlier one waits. */
  #nothingBefore(lane: Lane): boolean {
    for (const l of LANES) {
      if (this.#queues[l].length > 0) return false;
      if (l === lane) return true;
    }
    return true;
  }

  /** Calls of the window a lane must leave to the lanes before it. */
  #reserve(lane: Lane, now: number): number {
    const limit = this.#limit ?? 0;
    if (lane === 'person') return 0;
    if (lane === 'background') return Math.ceil(limit / 5);
    // A task leaves the person a tenth, until the window's end is near: what is left then would go unused. With
    // the end not known it spends the window, and the probe's 429 tells the end (once: then it is known).
    const endKnown = this.#resetAt > now;
    const nearEnd = endKnown && this.#resetAt - now <= this.#windowMs / 10;
    return !endKnown || nearEnd ? 0 : Math.ceil(limit / 10);
  }

  #canStart(lane: Lane, now: number): boolean {
    if (now < this.#blockedUntil) return false;
    if (this.#inFlight >= this.#concurrency()) return false;
    if (lane === 'background' && this.#laneInFlight.background > 0) return false;
    if (this.#remaining === null || this.#limit === null) return lane !== 'background' || this.#inFlight === 0;
    // One call goes to learn the window now open.
    if (this.#stale(now)) return this.#inFlight === 0;
    const free = this.#remaining - this.#inFlight;
    if (free > this.#reserve(lane, now)) return true;
    // Spent, and the reset not known: one call at a time goes as a probe (a person's, or a task's).
    return lane !== 'background' && free <= 0 && this.#inFlight === 0 && this.#resetAt <= now;
  }

  /** The cap if one is set; else the key's stated limit, one call until the first answer states it. */
  #concurrency(): number {
    if (this.#options.maxConcurrent !== null) return this.#options.maxConcurrent;
    if (this.#limit !== null) return this.#limit;
    return this.#answered ? UNSTATED_LIMIT_CONCURRENCY : 1;
  }

  #start(lane: Lane): Slot {
    this.#inFlight++;
    this.#laneInFlight[lane]++;
    this.#thisWindow[lane]++;
    if (lane !== 'background') this.#foregroundStarted++;
    const startedAt = this.#options.now();
    let released = false;
    return {
      release: (answer) => {
        if (released) return;
        released = true;
        // Learnt while this call still counts as in flight: see #learn.
        if (answer) {
          this.#answered = true;
          this.#callMs = Math.max(1, Math.round(this.#callMs * 0.8 + (this.#options.now() - startedAt) * 0.2));
          this.#learn(answer.headers, lane, startedAt);
        }
        if (answer?.status === 429) {
          const now = this.#options.now();
          this.#learnWindow(now + retryAfterSeconds(answer.headers, now) * 1000);
          this.holdFor(retryAfterSeconds(answer.headers, now));
          this.#options.onHeld?.(this.#blockedUntil);
        }
        this.#inFlight--;
        this.#laneInFlight[lane]--;
        this.#pump();
      },
    };
  }

  /**
   * A 429 says when the window ends, to the whole second (Retry-After rounds up): with when it opened, how long
   * a window is. Windows are whole seconds, so the first reading is rounded down; a 429 met later with the
   * window thought known says it is longer than thought.
   */
  #learnWindow(endsBy: number): void {
    if (this.#openedSentAt <= 0 || endsBy <= this.#openedSentAt) return;
    const length = endsBy - this.#openedSentAt;
    if (!this.#windowKnown) this.#windowMs = length < 1_000 ? Math.max(250, length) : Math.floor(length / 1_000) * 1_000;
    else if (length > this.#windowMs) this.#windowMs = length;
    this.#windowKnown = true;
  }

  #learn(headers: ResponseHeaders, lane: Lane, sentAt: number): void {
    const limit = intHeader(headers, 'x-ratelimit-limit');
    if (limit !== null && limit > 0) this.#limit = limit;
    const remaining = intHeader(headers, 'x-ratelimit-remaining');
    if (remaining === null) return;
    const now = this.#options.now();
    if (this.#resetAt > 0 && now >= this.#resetAt) this.#resetAt = 0;
    // This call opened the window: it ends a window's length from now at the latest. Two windows' openings are
    // a window apart at least (the next opens at the first call after the last ended): the window is no longer.
    if (this.#limit !== null && remaining === this.#limit - 1 && (this.#remaining === null || remaining > this.#remaining)) {
      // From the last opening call's sending to this answer: never less than a window, however slow an answer.
      if (this.#openedSentAt > 0) {
        const apart = now - this.#openedSentAt;
        this.#windowMs = this.#windowKnown ? Math.min(this.#windowMs, apart) : apart;
        this.#windowKnown = true;
      }
      this.#openedSentAt = sentAt;
      this.#resetAt = this.#windowKnown ? now + this.#windowMs + RESET_MARGIN_MS : 0;
      this.#thisWindow = { ...perLane(), [lane]: 1 };
    }
    this.#learntAt = now;
    // Answers can arrive out of order: a figure higher than ours counts only when the calls in flight
    // (this one included) cannot explain it, that is when a new window has begun.
    if (this.#remaining === null || remaining <= this.#remaining || remaining > this.#remaining + this.#inFlight) {
      this.#remaining = remaining;
    }
  }

  #pump(): void {
    const now = this.#options.now();
    for (const lane of LANES) {
      const queue = this.#queues[lane];
      while (queue.length > 0 && this.#canStart(lane, now)) {
        const w = queue.shift() as Waiter;
        this.#settle(w, () => w.resolve(this.#start(lane)));
      }
      // A later lane waits while an earlier one does: a person's call is never behind a task's or the background's.
      if (queue.length > 0) break;
    }
    this.#schedule(now);
  }

  /** The next moment the budget may let a waiting call go: the hold's end, the reset, a task's last tenth. */
  #nextChance(now: number): number | null {
    const times = [
      this.#blockedUntil,
      this.#resetAt + RESET_MARGIN_MS,
      this.#resetAt - this.#windowMs / 10,
      this.#learntAt + this.#windowMs,
    ];
    const future = times.filter((t) => t > now);
    const soonest = future.length > 0 ? Math.min(...future) : null;
    if (this.#queues.background.length === 0) return soonest;
    return Math.min(soonest ?? Number.POSITIVE_INFINITY, now + BACKGROUND_RECHECK_MS);
  }

  #schedule(now: number): void {
    if (this.#closed || LANES.every((lane) => this.#queues[lane].length === 0)) return;
    const at = this.#nextChance(now);
    if (at === null || (this.#wakeTimer && this.#wakeAt <= at)) return;
    if (this.#wakeTimer) this.#timers.clear(this.#wakeTimer);
    this.#wakeAt = at;
    this.#wakeTimer = this.#timers.set(
      () => {
        this.#wakeTimer = null;
        this.#pump();
      },
      Math.max(0, at - now),
      true,
    );
  }

  /** Tells a waiting call when the window lets it go, when that is known. */
  #tellWait(w: Waiter, now: number): void {
    if (!w.onWait) return;
    const spent = this.#remaining !== null && this.#remaining - this.#inFlight <= this.#reserve(w.lane, now);
    const until = Math.max(this.#blockedUntil, spent && this.#resetAt > now ? this.#resetAt : 0);
    if (until > now) w.onWait(until);
  }

  #expire(w: Waiter): void {
    this.#pump(); // its turn may have come at this very moment
    const queue = this.#queues[w.lane];
    const i = queue.indexOf(w);
    if (i < 0) return;
    queue.splice(i, 1);
    this.#settle(w, () => w.reject(this.#tooLong(this.#options.now(), w.bound)));
  }

  #drop(w: Waiter, reason: unknown): void {
    const queue = this.#queues[w.lane];
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

  /** The refusal of a call that would wait past its bound: when to retry, and whose calls spent the window. */
  #tooLong(now: number, boundMs: number): RateLimited {
    const until = Math.max(this.#blockedUntil, this.#resetAt);
    const retryAfter = Math.max(1, Math.ceil((until - now) / 1000));
    const bound = Math.round(boundMs / 1000);
    const seen = this.#thisWindow;
    const whose =
      seen.person + seen.task + seen.background > 0
        ? `This window's calls here: ${counted(seen.person, 'call')} you asked for, ${seen.task} for tasks, ${seen.background} the server's own reading of the books.`
        : null;
    return new RateLimited(
      `The call would wait more than ${bound} s for the service's rate limit (${this.#limit ?? 'unknown'} calls per window for this key).${whose === null ? '' : ` ${whose}`} Retry after ${counted(retryAfter, 'second')}.`,
      retryAfter,
      { status: null },
      whose,
    );
  }
}
