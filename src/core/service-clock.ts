// The service's clock, as its answers tell it: each answer's Date header (whole seconds, stamped between our
// request leaving and the answer arriving) bounds the offset between its clock and ours; answers that agree
// narrow it, and one that disagrees with them all (the service's clock was moved) starts again from its own.
// Before any answer carried a Date, a session's expiry as the service wrote it gives the offset (to the second).
// Watermarks and as-of times are in the service's clock, written in the business's time zone its stamps carry.

const ZONE_RE = /([+-]\d\d:\d\d|Z)$/;

export class ServiceClock {
  /** The offset (service minus ours, ms) lies in [low, high]. */
  #low = -Infinity;
  #high = Infinity;
  #heard = false;
  #first: number | null = null;
  #sessionOffsetMs: number | null = null;
  #zone: string | null = null;

  /** Our clock (ms since the epoch). */
  constructor(readonly ourNow: () => number = Date.now) {}

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

  /** A session's expiry as the service wrote it, and the same moment by our clock. */
  heardSession(serviceExpiresAt: string | null, expiresAt: number | null): void {
    const service = serviceExpiresAt === null ? Number.NaN : Date.parse(serviceExpiresAt);
    if (Number.isFinite(service) && expiresAt !== null) this.#sessionOffsetMs = service - expiresAt;
    if (serviceExpiresAt) this.learnZone(serviceExpiresAt);
  }

  /** Service time minus ours (ms) as the answers' Dates tell it, or null before any answer carried one. */
  offsetMs(): number | null {
    return this.#heard ? Math.round((this.#low + this.#high) / 2) : null;
  }

  /** The service's time at its first answer (its Date, whole seconds), or null before any answer carried one. */
  firstHeard(): number | null {
    return this.#first;
  }

  /** The service's time now (ms) as its answers' Dates tell it, else a session's; null when neither has. */
  serviceNow(): number | null {
    const offset = this.offsetMs() ?? this.#sessionOffsetMs;
    return offset === null ? null : this.ourNow() + offset;
  }

  /** The service's time now (ms) as its answers so far tell it; our clock when none has. */
  now(): number {
    return this.serviceNow() ?? this.ourNow();
  }

  learnZone(stamp: string): void {
    const zone = ZONE_RE.exec(stamp)?.[1];
    if (zone) this.#zone = zone;
  }

  /** ISO 8601 in the business's time zone (as its stamps are written), to the second. */
  format(ms: number): string {
    const zone = this.#zone ?? 'Z';
    const offsetMin = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
    const local = new Date(Math.floor(ms / 1000) * 1000 + offsetMin * 60_000).toISOString().slice(0, 19);
    return `${local}${zone === 'Z' ? 'Z' : zone}`;
  }
}
