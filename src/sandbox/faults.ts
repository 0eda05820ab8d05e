// Fault injection for /api calls: answer 500, drop the connection before handling, drop it after
// handling (a create is applied and its response lost), or add latency.

export const FAULT_KINDS = ['500', 'reset', 'reset_after', 'latency'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSettings {
  rate: number;
  kinds: FaultKind[];
  latency_ms: number;
}

export class Faults {
  #settings: FaultSettings = { rate: 0, kinds: [], latency_ms: 0 };

  get settings(): FaultSettings {
    return { ...this.#settings, kinds: [...this.#settings.kinds] };
  }

  set(settings: FaultSettings): void {
    this.#settings = { ...settings, kinds: [...settings.kinds] };
  }

  clear(): void {
    this.#settings = { rate: 0, kinds: [], latency_ms: 0 };
  }

  /** The fault to inflict on one call, if any. */
  draw(): FaultKind | null {
    const { rate, kinds } = this.#settings;
    if (rate <= 0 || kinds.length === 0 || Math.random() >= rate) return null;
    return kinds[Math.floor(Math.random() * kinds.length)] ?? null;
  }
}
