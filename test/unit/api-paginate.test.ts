// The pagination helper ends on whichever signal the service gives, and prefetches one page at most.
import { describe, expect, it } from 'vitest';
import { hasNextPage, paginate, paginatePages } from '../../src/api/paginate.js';
import type { Page } from '../../src/api/schemas.js';

function book(total: number, envelope: 'full' | 'none' | 'nulls' | 'links') {
  const calls: number[] = [];
  const fetch = async (page: number, perPage: number): Promise<Page<number>> => {
    calls.push(page);
    const start = (page - 1) * perPage;
    const data = Array.from({ length: Math.max(0, Math.min(perPage, total - start)) }, (_, i) => start + i + 1);
    const last = Math.max(1, Math.ceil(total / perPage));
    if (envelope === 'none') return { data };
    if (envelope === 'nulls') return { data, meta: { current_page: null, last_page: null, total: null }, links: null };
    if (envelope === 'links') return { data, links: { next: page < last ? `https://x/?page=${page + 1}` : null } };
    return { data, meta: { current_page: page, last_page: last, per_page: perPage, total }, links: { next: page < last ? 'n' : null } };
  };
  return { calls, fetch };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('paginate', () => {
  for (const envelope of ['full', 'none', 'nulls', 'links'] as const) {
    it(`reads every record with ${envelope} envelope signals`, async () => {
      const b = book(250, envelope);
      const items = await collect(paginate(b.fetch, { perPage: 100 }));
      expect(items).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
      expect(b.calls).toEqual([1, 2, 3]);
    });
  }

  it('asks once for an empty list', async () => {
    const b = book(0, 'full');
    expect(await collect(paginate(b.fetch))).toEqual([]);
    expect(b.calls).toEqual([1]);
  });

  it('stops at an empty page when a full last page leaves it unsure', async () => {
    const b = book(200, 'none');
    expect(await collect(paginate(b.fetch, { perPage: 100 }))).toHaveLength(200);
    expect(b.calls).toEqual([1, 2, 3]);
  });

  it('honours startPage and maxPages', async () => {
    const b = book(1000, 'full');
    const pages = await collect(paginatePages(b.fetch, { perPage: 100, startPage: 3, maxPages: 2 }));
    expect(pages.map((p) => p.data[0])).toEqual([201, 301]);
    expect(b.calls).toEqual([3, 4]);
  });

  it('prefetches one page ahead, and no more when the caller stops', async () => {
    const b = book(1000, 'full');
    for await (const page of paginatePages(b.fetch, { perPage: 100 })) {
      expect(page.data[0]).toBe(1);
      break;
    }
    expect(b.calls).toEqual([1, 2]);
    const c = book(1000, 'full');
    for await (const page of paginatePages(c.fetch, { perPage: 100, prefetch: false })) {
      expect(page.data[0]).toBe(1);
      break;
    }
    expect(c.calls).toEqual([1]);
  });

  it('passes on a failing page, and a failed prefetch after an early stop is harmless', async () => {
    const failing = async (page: number): Promise<Page<number>> => {
      if (page === 2) throw new Error('page 2 failed');
      return { data: [page], meta: { current_page: page, last_page: 5 } };
    };
    await expect(collect(paginate(failing))).rejects.toThrow('page 2 failed');
    for await (const x of paginate(failing)) {
      expect(x).toBe(1);
      break;
    }
  });
});

describe('hasNextPage', () => {
  it('trusts meta over links over a full page', () => {
    const req = { page: 1, perPage: 2 };
    expect(hasNextPage({ data: [1, 2], meta: { current_page: 1, last_page: 1 }, links: { next: 'x' } }, req)).toBe(false);
    expect(hasNextPage({ data: [1], links: { next: 'x' } }, req)).toBe(true);
    expect(hasNextPage({ data: [1, 2] }, req)).toBe(true);
    expect(hasNextPage({ data: [1] }, req)).toBe(false);
  });
});
