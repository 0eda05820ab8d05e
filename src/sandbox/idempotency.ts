// Idempotency records, per key set, mode and endpoint, kept 24 hours on the sandbox clock.
// "Same body" means the same JSON value: keys are sorted before comparing.

const WINDOW_MS = 24 * 3600 * 1000;

export interface StoredResponse {
  status: number;
  body: string;
}

interface Entry extends StoredResponse {
  bodyFingerprint: string;
  storedMs: number;
}

export type IdempotencyLookup = { kind: 'new' } | { kind: 'replay'; response: StoredResponse } | { kind: 'conflict' };

export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>();

  lookup(scope: string, key: string, body: unknown, nowMs: number): IdempotencyLookup {
    const entry = this.#entries.get(`${scope}\u0000${key}`);
    if (!entry || nowMs - entry.storedMs >= WINDOW_MS) return { kind: 'new' };
    if (entry.bodyFingerprint !== canonicalJson(body)) return { kind: 'conflict' };
    return { kind: 'replay', response: { status: entry.status, body: entry.body } };
  }

  store(scope: string, key: string, body: unknown, response: StoredResponse, nowMs: number): void {
    this.#entries.set(`${scope}\u0000${key}`, { ...response, bodyFingerprint: canonicalJson(body), storedMs: nowMs });
    if (this.#entries.size % 1024 === 0) this.sweep(nowMs);
  }

  sweep(nowMs: number): void {
    for (const [k, e] of this.#entries) if (nowMs - e.storedMs >= WINDOW_MS) this.#entries.delete(k);
  }
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
