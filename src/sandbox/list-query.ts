// Every list: page, per_page, updated_since and the resource's own filters, ascending ids, and the
// links/meta envelope. Bad values are 422 keyed by the parameter's name; unknown parameters are ignored.
import { FieldErrorList } from './api-error.js';
import type { Collection, Identified } from './collection.js';
import { parseUpdatedSince } from './time.js';

export type Query = Record<string, string | string[] | undefined>;

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

export interface Filter<T> {
  name: string;
  parse(raw: string): Parsed;
  matches(item: T, value: unknown): boolean;
}

const INTEGER_RE = /^[0-9]+$/;

export function enumFilter<T>(name: string, values: readonly string[], get: (item: T) => string): Filter<T> {
  return {
    name,
    parse: (raw) => (values.includes(raw) ? { ok: true, value: raw } : { ok: false, message: `must be one of: ${values.join(', ')}` }),
    matches: (item, value) => get(item) === value,
  };
}

export function booleanFilter<T>(name: string, get: (item: T) => boolean): Filter<T> {
  return {
    name,
    parse: (raw) => {
      if (raw === 'true' || raw === '1') return { ok: true, value: true };
      if (raw === 'false' || raw === '0') return { ok: true, value: false };
      return { ok: false, message: 'must be true or false' };
    },
    matches: (item, value) => get(item) === value,
  };
}

export function integerFilter<T>(name: string, get: (item: T) => number): Filter<T> {
  return {
    name,
    parse: (raw) =>
      INTEGER_RE.test(raw) && raw.length < 16 ? { ok: true, value: Number(raw) } : { ok: false, message: 'must be an integer' },
    matches: (item, value) => get(item) === value,
  };
}

export function textFilter<T>(name: string, matches: (item: T, text: string) => boolean): Filter<T> {
  return { name, parse: (raw) => ({ ok: true, value: raw }), matches: (item, value) => matches(item, value as string) };
}

function single(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

export interface ListRequest<T> {
  collection: Collection<T & Identified>;
  filters: Filter<T>[];
  query: Query;
  timeZone: string;
  /** The list's absolute URL without a query, for the envelope's links. */
  url: string;
  view: string;
  render: (item: T) => unknown;
}

interface Paging {
  page: number;
  perPage: number;
}

function readPaging(query: Query, errors: FieldErrorList): Paging {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = single(query, name);
    if (raw === undefined) return fallback;
    if (!INTEGER_RE.test(raw) || raw.length > 9) {
      errors.add(name, `${name} must be an integer`);
      return fallback;
    }
    const n = Number(raw);
    if (n < min || n > max)
      errors.add(name, max === Infinity ? `${name} must be at least ${min}` : `${name} must be between ${min} and ${max}`);
    return n;
  };
  return { page: read('page', 1, 1, Infinity), perPage: read('per_page', 25, 1, 100) };
}

/** Runs a list request and returns the response body as JSON text. */
export function runList<T>(req: ListRequest<T>): string {
  const errors = new FieldErrorList();
  const paging = readPaging(req.query, errors);
  const active: { filter: Filter<T>; value: unknown; raw: string }[] = [];
  for (const filter of req.filters) {
    const raw = single(req.query, filter.name);
    if (raw === undefined) continue;
    const parsed = filter.parse(raw);
    if (parsed.ok) active.push({ filter, value: parsed.value, raw });
    else errors.add(filter.name, `${filter.name} ${parsed.message}`);
  }
  const sinceRaw = single(req.query, 'updated_since');
  let sinceMs: number | null = null;
  if (sinceRaw !== undefined) {
    sinceMs = parseUpdatedSince(sinceRaw, req.timeZone);
    if (sinceMs === null) {
      errors.add(
        'updated_since',
        'updated_since must be an ISO 8601 date (2026-01-31) or timestamp with Z or an offset (2026-01-31T09:00:00Z); send + as %2B',
      );
    }
  }
  errors.throwIfAny();

  const all = req.collection.items;
  const matching =
    active.length === 0 && sinceMs === null
      ? all
      : all.filter((item) => (sinceMs === null || item.updatedMs >= sinceMs) && active.every((a) => a.filter.matches(item, a.value)));
  const total = matching.length;
  const lastPage = Math.max(1, Math.ceil(total / paging.perPage));
  const start = (paging.page - 1) * paging.perPage;
  const pageItems = matching.slice(start, start + paging.perPage);
  const data = pageItems.map((item) => req.collection.json(item as T & Identified, req.view, () => req.render(item))).join(',');

  const keep = active.map((a) => `${encodeURIComponent(a.filter.name)}=${encodeURIComponent(a.raw)}`);
  if (sinceRaw !== undefined) keep.push(`updated_since=${encodeURIComponent(sinceRaw)}`);
  keep.push(`per_page=${paging.perPage}`);
  const link = (page: number): string => `${req.url}?${[...keep, `page=${page}`].join('&')}`;
  const links = {
    first: link(1),
    last: link(lastPage),
    prev: paging.page > 1 ? link(Math.min(paging.page - 1, lastPage)) : null,
    next: paging.page < lastPage ? link(paging.page + 1) : null,
  };
  const meta = {
    current_page: paging.page,
    from: pageItems.length > 0 ? start + 1 : null,
    last_page: lastPage,
    per_page: paging.perPage,
    to: pageItems.length > 0 ? start + pageItems.length : null,
    total,
  };
  return `{"data":[${data}],"links":${JSON.stringify(links)},"meta":${JSON.stringify(meta)}}`;
}
