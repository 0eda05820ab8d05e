// The service's clock, as seen from here: the Date of its latest answers (api/service-time.ts), so it moves
// when the service's clock does, between sign-ins too. Before any answer carried a Date, the session's expiry
// as the service wrote it against the same moment by our clock gives the offset (to the second). Watermarks
// and as-of times are in the service's clock, and written in the business's time zone, which its stamps carry.
import type { ApiClient } from '../api/client.js';

const ZONE_RE = /([+-]\d\d:\d\d|Z)$/;

export class ServiceClock {
  #sessionOffsetMs: number | null = null;
  #zone: string | null = null;
  constructor(
    private readonly api: ApiClient,
    private readonly ourNow: () => number = Date.now,
  ) {}

  /** Signs in if need be (its answer tells the service's time), then the service's time now (ms). */
  async read(signal?: AbortSignal): Promise<number> {
    try {
      const s = await this.api.session(signal ? { signal } : {});
      const service = s.serviceExpiresAt === null ? NaN : Date.parse(s.serviceExpiresAt);
      if (Number.isFinite(service) && s.expiresAt !== null) this.#sessionOffsetMs = service - s.expiresAt;
      if (s.serviceExpiresAt) this.learnZone(s.serviceExpiresAt);
    } catch {
      // The sync's own calls will report the problem; the last offset stands.
    }
    return this.now();
  }

  /** The service's time now (ms) as its answers so far tell it, without a call; our clock when none has. */
  now(): number {
    return this.heard() ?? this.ourNow();
  }

  /** The service's time now (ms) as its answers so far tell it; null when none has (this process made no call). */
  heard(): number | null {
    const offset = this.#sessionOffsetMs;
    return this.api.serviceTime.serviceNow() ?? (offset === null ? null : this.ourNow() + offset);
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
