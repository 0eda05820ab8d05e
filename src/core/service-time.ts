// The service's clock as its answers tell it. Every answer carries a Date header (HTTP requires one of a
// server with a clock): whole seconds of the service's time, stamped between our request leaving and the
// answer arriving. Each answer so bounds the offset between the service's clock and ours; the bounds of
// answers that agree narrow it, and an answer that disagrees with them all (the service's clock was moved)
// starts again from its own. So the estimate always lies within the latest answer's bounds.

export class ServiceTime {
  /** The offset (service minus ours, ms) lies in [low, high]. */
  #low = -Infinity;
  #high = Infinity;
  #heard = false;
  #first: number | null = null;

  /** Our clock (ms since the epoch). */
  constructor(readonly ourNow: () => number) {}

  /** An answer's Date header, with our clock when its request left and when it came back. */
  heard(date: string | undefined, sentAt: number, receivedAt: number): void {
    const stamped = date === undefined ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(stamped)) return;
    this.#first ??= stamped;
    const low = stamped - receivedAt;
    const high = stamped + 1000 - sentAt;
    if (this.#heard && low <= this.#high && high >= this.#low) {
      this.#low = Math.max(this.#low, low);
      this.#high = Math.min(this.#high, high);
    } else {
      this.#low = low;
      this.#high = high;
    }
    this.#heard = true;
  }

  /** Service time minus ours (ms), or null before any answer carried a Date. */
  offsetMs(): number | null {
    return this.#heard ? Math.round((this.#low + this.#high) / 2) : null;
  }

  /** The service's time at its first answer (its Date, whole seconds), or null before any answer carried one. */
  firstHeard(): number | null {
    return this.#first;
  }

  /** The service's time now (ms since the epoch), or null before any answer carried a Date. */
  serviceNow(): number | null {
    const offset = this.offsetMs();
    return offset === null ? null : this.ourNow() + offset;
  }
}
