// Per-grant request limits: each grant may send so many requests a minute to /mcp (in each process), so
// that one assistant gone wild cannot take the whole deployment. It does not keep a grant from the key's other
// grants' share of the service's limit: the default (600 a minute) is above the service's 120 a key, and the
// key's calls wait their turn in one queue (docs/hosted.md, Not yet). Fixed windows of a minute, as the
// service's own limit is counted.
const WINDOW_MS = 60_000;
/** Past this many grants tracked, windows that have ended are dropped. */
const SWEEP_AT = 10_000;

export interface GrantVerdict {
  allowed: boolean;
  /** Seconds until the window ends, when refused. */
  retryAfter: number;
}

export class GrantLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly perMinute: number,
    readonly now: () => number = Date.now,
  ) {}

  hit(grantId: string): GrantVerdict {
    const now = this.now();
    if (this.#windows.size > SWEEP_AT) for (const [id, w] of this.#windows) if (now - w.start >= WINDOW_MS) this.#windows.delete(id);
    let window = this.#windows.get(grantId);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.#windows.set(grantId, window);
    }
    window.count++;
    if (window.count <= this.perMinute) return { allowed: true, retryAfter: 0 };
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000)) };
  }
}
