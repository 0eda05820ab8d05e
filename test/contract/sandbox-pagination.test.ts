// Contract: pagination edges and `updated_since` on every list (spec "List endpoints: common query
// parameters", "Pagination envelope"; open-points "Wire details").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  at1300,
  get,
  type Json,
  listAll,
  nzMidnight,
  type SandboxHandle,
  type Session,
  signIn,
  sortedKeys,
  start,
} from './sandbox-http.js';
import { RESOURCES, type Resource } from './sandbox-records.js';

let sb: SandboxHandle;
let test: Session;
/** Every record of each list in test mode, in the order the service returned them. */
const books = {} as Record<Resource, Json[]>;

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  test = await signIn(sb.baseUrl, sb.keys.test);
  for (const r of RESOURCES) books[r] = await listAll(test, `/api/v1/${r}`);
});

afterAll(async () => {
  await sb?.close();
});

const ids = (records: Json[]): number[] => records.map((r) => r.id);

/** The ids a filtered list returns, all pages followed. */
async function filtered(resource: Resource, query: string): Promise<number[]> {
  return ids(await listAll(test, `/api/v1/${resource}?${query}`));
}

describe('pagination', () => {
  const path = '/api/v1/invoices';

  it('page 1 at the default size of 25: meta and links, on every list', async () => {
    for (const r of RESOURCES) {
      const reply = await get(test, `/api/v1/${r}`);
      const total = books[r].length;
      const lastPage = Math.ceil(total / 25);
      expect(reply.status).toBe(200);
      expect(sortedKeys(reply.body)).toEqual(['data', 'links', 'meta']);
      expect(ids(reply.body.data)).toEqual(ids(books[r].slice(0, 25)));
      expect(reply.body.meta).toEqual({ current_page: 1, from: 1, last_page: lastPage, per_page: 25, to: 25, total });
      expect(sortedKeys(reply.body.links)).toEqual(['first', 'last', 'next', 'prev']);
      expect(reply.body.links.prev).toBeNull();
      for (const k of ['first', 'last', 'next']) expect(reply.body.links[k]).toMatch(new RegExp(`^${sb.baseUrl}/api/v1/${r}\\?`));
      expect(lastPage, r).toBeGreaterThanOrEqual(2);
    }
  });

  it('the last page: the remainder, next null, to equal to total, on every list', async () => {
    for (const r of RESOURCES) {
      const total = books[r].length;
      const lastPage = Math.ceil(total / 25);
      const reply = await get(test, `/api/v1/${r}?page=${lastPage}`);
      expect(reply.status).toBe(200);
      expect(ids(reply.body.data)).toEqual(ids(books[r].slice((lastPage - 1) * 25)));
      expect(reply.body.meta).toEqual({
        current_page: lastPage,
        from: (lastPage - 1) * 25 + 1,
        last_page: lastPage,
        per_page: 25,
        to: total,
        total,
      });
      expect(reply.body.links.next).toBeNull();
      expect(reply.body.links.prev).not.toBeNull();
    }
  });

  it('past the last page: 200 with empty data and null from/to, on every list', async () => {
    for (const r of RESOURCES) {
      const total = books[r].length;
      const lastPage = Math.ceil(total / 25);
      const reply = await get(test, `/api/v1/${r}?page=${lastPage + 3}`);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual([]);
      expect(reply.body.meta).toEqual({ current_page: lastPage + 3, from: null, last_page: lastPage, per_page: 25, to: null, total });
      expect(reply.body.links.next).toBeNull();
      const back = await get(test, reply.body.links.last);
      expect(ids(back.body.data)).toEqual(ids(books[r].slice((lastPage - 1) * 25)));
    }
  });

  it('an empty list: no data, null from/to, last_page 1, total 0', async () => {
    const reply = await get(test, '/api/v1/customers?search=zzqq-nothing-matches');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(reply.body.meta).toEqual({ current_page: 1, from: null, last_page: 1, per_page: 25, to: null, total: 0 });
    expect(reply.body.links.prev).toBeNull();
    expect(reply.body.links.next).toBeNull();
  });

  it('per_page 1 and 100', async () => {
    const total = books.invoices.length;
    const one = await get(test, `${path}?per_page=1&page=2`);
    expect(ids(one.body.data)).toEqual([books.invoices[1].id]);
    expect(one.body.meta).toEqual({ current_page: 2, from: 2, last_page: total, per_page: 1, to: 2, total });
    const hundred = await get(test, `${path}?per_page=100`);
    expect(ids(hundred.body.data)).toEqual(ids(books.invoices.slice(0, 100)));
    expect(hundred.body.meta).toEqual({ current_page: 1, from: 1, last_page: Math.ceil(total / 100), per_page: 100, to: 100, total });
  });

  it('refuses per_page 0 and 101, page 0, and non-integers with 422 keyed by the parameter', async () => {
    const cases: [string, string][] = [
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['per_page=-5', 'per_page'],
      ['per_page=ten', 'per_page'],
      ['per_page=2.5', 'per_page'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=two', 'page'],
    ];
    for (const resource of RESOURCES) {
      for (const [query, param] of cases) {
        const reply = await get(test, `/api/v1/${resource}?${query}`);
        expect(reply.status, `${resource}?${query}`).toBe(422);
        expect(Object.keys(reply.body.errors)).toEqual([param]);
      }
    }
  });

  it('links that work when followed: next to the end, prev back to the start, with filters kept', async () => {
    for (const resource of RESOURCES) {
      const seen: number[] = [];
      let url: string | null = `/api/v1/${resource}?per_page=30`;
      let pages = 0;
      let reply: Awaited<ReturnType<typeof get>> | undefined;
      while (url) {
        reply = await get(test, url);
        expect(reply.status).toBe(200);
        pages += 1;
        expect(reply.body.meta.current_page).toBe(pages);
        seen.push(...ids(reply.body.data));
        url = reply.body.links.next;
      }
      expect(seen).toEqual(ids(books[resource]));
      expect(pages).toBe(reply!.body.meta.last_page);
      const first = await get(test, reply!.body.links.first);
      expect(ids(first.body.data)).toEqual(ids(books[resource].slice(0, 30)));
      const last = await get(test, first.body.links.last);
      expect(last.body.meta.current_page).toBe(pages);
      const prev = await get(test, last.body.links.prev);
      expect(prev.body.meta.current_page).toBe(pages - 1);
    }
    const paid = ids(books.invoices.filter((i) => i.status === 'paid'));
    const page1 = await get(test, `${path}?status=paid&per_page=10`);
    const page2 = await get(test, page1.body.links.next);
    expect(ids(page2.body.data)).toEqual(paid.slice(10, 20));
    expect(page2.body.meta.total).toBe(paid.length);
  });
});

describe('updated_since', () => {
  // Payments never change, so their created_at is the time updated_since compares with.
  const stamp = (r: Json): number => Date.parse(r.updated_at ?? r.created_at);
  const pivotOf = (records: Json[]): Json => [...records].sort((a, b) => stamp(a) - stamp(b))[Math.floor(records.length * 0.6)];
  const since = (records: Json[], ms: number): number[] => ids(records.filter((r) => stamp(r) >= ms));

  it('takes a timestamp with Z: records changed at or after it', async () => {
    for (const resource of RESOURCES) {
      const pivot = pivotOf(books[resource]);
      const ms = stamp(pivot);
      const z = new Date(ms).toISOString().replace('.000Z', 'Z');
      const got = await filtered(resource, `updated_since=${z}`);
      expect(got).toEqual(since(books[resource], ms));
      expect(got).toContain(pivot.id);
      expect(got.length).toBeLessThan(books[resource].length);
    }
  });

  it('takes a timestamp with an offset sent as %2B13:00', async () => {
    const pivot = pivotOf(books.invoices);
    const ms = Date.parse(pivot.updated_at);
    const text = at1300(ms);
    expect(await filtered('invoices', `updated_since=${text.replace('+', '%2B')}`)).toEqual(since(books.invoices, ms));
    const justAfter = at1300(ms + 1000).replace('+', '%2B');
    expect(await filtered('invoices', `updated_since=${justAfter}`)).not.toContain(pivot.id);
  });

  it('takes any other offset too, such as -05:00', async () => {
    const pivot = pivotOf(books.customers);
    const ms = Date.parse(pivot.updated_at);
    const text = `${new Date(ms - 5 * 3600_000).toISOString().slice(0, 19)}-05:00`;
    expect(await filtered('customers', `updated_since=${text}`)).toEqual(since(books.customers, ms));
  });

  it('takes a date: midnight of that day in the business time zone', async () => {
    const pivot = pivotOf(books.invoices);
    const date = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(Date.parse(pivot.updated_at));
    const got = await filtered('invoices', `updated_since=${date}`);
    expect(got).toEqual(since(books.invoices, nzMidnight(date)));
    expect(got).toContain(pivot.id);
    const winterDate = '2026-07-01';
    expect(await filtered('invoices', `updated_since=${winterDate}`)).toEqual(since(books.invoices, nzMidnight(winterDate)));
  });

  it('keeps updated_since in the links, encoded', async () => {
    const pivot = pivotOf(books.invoices);
    const text = at1300(Date.parse(pivot.updated_at));
    const reply = await get(test, `/api/v1/invoices?updated_since=${text.replace('+', '%2B')}&per_page=5`);
    for (const link of ['first', 'last', 'next']) {
      expect(new URL(reply.body.links[link]).searchParams.get('updated_since')).toBe(text);
      expect(reply.body.links[link]).not.toContain('+');
    }
    const next = await get(test, reply.body.links.next);
    expect(next.status).toBe(200);
    expect(next.body.meta.total).toBe(reply.body.meta.total);
  });

  it('refuses a raw + in the offset, and anything that is not a date or timestamp, with 422', async () => {
    const pivot = pivotOf(books.invoices);
    const raw = at1300(Date.parse(pivot.updated_at));
    for (const bad of [raw, 'yesterday', '2026-02-30', '2026-13-01T00:00:00Z', '2026-01-01T25:00:00Z', '2026-01-01T10:00:00']) {
      const reply = await get(test, `/api/v1/invoices?updated_since=${bad}`);
      expect(reply.status, bad).toBe(422);
      expect(Object.keys(reply.body.errors)).toEqual(['updated_since']);
    }
  });
});
