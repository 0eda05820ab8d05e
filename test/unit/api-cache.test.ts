// The read cache: keyed by scope, kind, path and query; bounded; invalidated by record and by kind.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_OPTIONS, ReadCache } from '../../src/api/cache.js';

const options = { ...DEFAULT_CACHE_OPTIONS, maxEntries: 100, maxBytes: 1000 };

describe('ReadCache', () => {
  it('stores frozen values under keys of scope, kind, path and query', () => {
    const cache = new ReadCache('svck_test_a|test', options);
    const key = cache.key('invoices', '/api/v1/invoices', '?page=2');
    expect(key).toBe('svck_test_a|test|invoices|/api/v1/invoices?page=2');
    cache.set('invoices', key, { data: [{ id: 1 }] }, 10, cache.generation('invoices'));
    const value = cache.get(key) as { data: Array<{ id: number }> };
    expect(value.data[0]?.id).toBe(1);
    expect(Object.isFrozen(value.data[0])).toBe(true);
    expect(cache.get('other')).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, entries: 1, bytes: 10 });
  });

  it('does not store an answer fetched across an invalidation', () => {
    const cache = new ReadCache('s', options);
    const key = cache.key('customers', '/api/v1/customers', '');
    const generation = cache.generation('customers');
    cache.invalidate('customers');
    cache.set('customers', key, { data: [] }, 5, generation);
    expect(cache.get(key)).toBeUndefined();
  });

  it('invalidates one record and the lists of its kind', () => {
    const cache = new ReadCache('s', options);
    const put = (kind: 'invoices' | 'customers', path: string, query = '') =>
      cache.set(kind, cache.key(kind, path, query), {}, 1, cache.generation(kind));
    put('invoices', '/api/v1/invoices/5');
    put('invoices', '/api/v1/invoices/50');
    put('invoices', '/api/v1/invoices', '?status=paid');
    put('customers', '/api/v1/customers/5');
    cache.invalidate('invoices', 5);
    const has = (kind: 'invoices' | 'customers', path: string, query = '') => cache.get(cache.key(kind, path, query)) !== undefined;
    expect(has('invoices', '/api/v1/invoices/5')).toBe(false);
    expect(has('invoices', '/api/v1/invoices/50')).toBe(true);
    expect(has('invoices', '/api/v1/invoices', '?status=paid')).toBe(false);
    expect(has('customers', '/api/v1/customers/5')).toBe(true);
    cache.invalidate('invoices');
    expect(has('invoices', '/api/v1/invoices/50')).toBe(false);
  });

  it('stays within its byte bound and skips values larger than it', () => {
    const cache = new ReadCache('s', options);
    for (let i = 0; i < 20; i++) cache.set('products', cache.key('products', `/api/v1/products/${i}`, ''), {}, 100, 0);
    expect(cache.stats().bytes).toBeLessThanOrEqual(1000);
    cache.set('products', 'big', {}, 5000, 0);
    expect(cache.get('big')).toBeUndefined();
  });

  it('can be switched off', () => {
    const cache = new ReadCache('s', { ...options, enabled: false });
    expect(cache.enabled).toBe(false);
    cache.set('quotes', 'k', {}, 1, 0);
    expect(cache.get('k')).toBeUndefined();
  });
});
