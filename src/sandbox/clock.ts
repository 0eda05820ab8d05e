// The sandbox clock: real time plus an offset. The offset starts where the sandbox was told to start (a pinned
// day) and the admin interface can advance it, so sessions expire, windows reset, retention passes and
// statuses move with time without waiting.

export class SandboxClock {
  #offsetMs: number;

  /** `startMs`: the instant the clock reads now; real time when absent. */
  constructor(startMs?: number) {
    this.#offsetMs = startMs === undefined ? 0 : startMs - Date.now();
  }

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  advance(seconds: number): number {
    this.#offsetMs += seconds * 1000;
    return this.now();
  }
}
