// The sandbox clock: real time plus an offset that the admin interface can advance, so sessions expire,
// rate windows reset and retention passes without waiting.

export class SandboxClock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  advance(seconds: number): number {
    this.#offsetMs += seconds * 1000;
    return this.now();
  }
}
