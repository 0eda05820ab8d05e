// The read cache: validated GET answers keyed by key ID, mode, path and query; bounded by entries and
// bytes; a TTL per kind of record. Invalidated by our own creates (the lists they touch) and by
// `invalidate(kind, id)` from the events layer. Stored values are frozen, so a caller cannot corrupt them.
import { LRUCache } from 'lru-cache';
import { RESOURCE_KINDS, type ResourceKind } from './schemas.js';

export interface CacheOptions {
  enabled: boolean;
  maxEntries: number;
  maxBytes: number;
  /** Time to live per kind, ms. */
  ttlMs: Record<ResourceKind, number>;
}

// Sizes are the answers' JSON text; held parsed, an answer takes about three times that in the heap (a
// 620-byte invoice: 1.9 KB with its key), and V8 grows the heap to about four times what stays live, so
// every MB held here costs some 12 MB of RSS. A thousand answers (or 8 MB of text) cover the records a
// conversation reads again within the TTLs; the books mirror, not this cache, is what holds the books.
export const DEFAULT_CACHE_OPTIONS: CacheOptions = {
  enabled: true,
  maxEntries: 1000,
  maxBytes: 8 * 1024 * 1024,
  ttlMs: { customers: 60_000, invoices: 30_000, quotes: 60_000, payments: 60_000, products: 30_000 },
};

export interface CacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

/** How a read uses the cache: `use` (default), `refresh` (skip the read, store the answer), `skip` (neither). */
export type CacheMode = 'use' | 'refresh' | 'skip';

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    const o = value as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (v !== null && typeof v === 'object') deepFreeze(v);
    }
  }
  return value;
}

export class ReadCache {
  readonly #lru: LRUCache<string, object> | null;
  readonly #options: CacheOptions;
  readonly #scope: string;
  readonly #generation = new Map<ResourceKind, number>();
  #hits = 0;
  #misses = 0;

  /** `scope` is the key ID and mode: answers of one key are never served to another. */
  constructor(scope: string, options: CacheOptions) {
    this.#scope = scope;
    this.#options = options;
    this.#lru =
      options.enabled && options.maxEntries > 0
        ? new LRUCache<string, object>({ max: options.maxEntries, maxSize: options.maxBytes, ttlAutopurge: false })
        : null;
  }

  get enabled(): boolean {
    return this.#lru !== null;
  }

  /** `path` and `query` exactly as sent (query in a canonical order). */
  key(kind: ResourceKind, path: string, query: string): string {
    return `${this.#scope}|${kind}|${path}${query}`;
  }

  get(key: string): object | undefined {
    const value = this.#lru?.get(key);
    if (value === undefined) this.#misses++;
    else this.#hits++;
    return value;
  }

  /** A token to hand back to `set`: an answer fetched across an invalidation is not stored. */
  generation(kind: ResourceKind): number {
    return this.#generation.get(kind) ?? 0;
  }

  set(kind: ResourceKind, key: string, value: object, size: number, generation: number): void {
    if (!this.#lru || generation !== this.generation(kind)) return;
    const bytes = Math.max(1, size);
    if (bytes > this.#options.maxBytes) return;
    this.#lru.set(key, deepFreeze(value), { ttl: this.#options.ttlMs[kind], size: bytes });
  }

  /** Drops the record `id` of `kind` (or every record of it) and every list of `kind`. */
  invalidate(kind: ResourceKind, id?: number | string): void {
    this.#generation.set(kind, this.generation(kind) + 1);
    if (!this.#lru) return;
    const prefix = `${this.#scope}|${kind}|`;
    const recordPrefix = `${prefix}/api/v1/${kind}/`;
    const record = id === undefined ? null : `${recordPrefix}${String(id)}`;
    for (const key of [...this.#lru.keys()]) {
      if (!key.startsWith(prefix)) continue;
      const isRecord = key.startsWith(recordPrefix);
      if (!isRecord || record === null || key === record || key.startsWith(`${record}?`)) this.#lru.delete(key);
    }
  }

  clear(): void {
    this.#lru?.clear();
    for (const kind of RESOURCE_KINDS) this.#generation.set(kind, this.generation(kind) + 1);
  }

  stats(): CacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      entries: this.#lru?.size ?? 0,
      bytes: this.#lru?.calculatedSize ?? 0,
    };
  }
}
