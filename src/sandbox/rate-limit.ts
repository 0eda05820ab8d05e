// Fixed-window counters: a window opens at its first call and lasts `windowMs`.

export interface WindowVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets, at least 1. */
  retryAfter: number;
}

interface Window {
  startMs: number;
  count: number;
}

export class FixedWindowLimiter<K> {
  readonly #windows = new Map<K, Window>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts one call for `key` when there is room; a refused call is not counted. */
  hit(key: K, nowMs: number): WindowVerdict {
    let w = this.#windows.get(key);
    if (!w || nowMs >= w.startMs + this.windowMs) {
      w = { startMs: nowMs, count: 0 };
      this.#windows.set(key, w);
    }
    const retryAfter = Math.max(1, Math.ceil((w.startMs + this.windowMs - nowMs) / 1000));
    if (w.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, retryAfter };
    w.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - w.count, retryAfter };
  }
}
