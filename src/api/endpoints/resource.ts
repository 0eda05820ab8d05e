// The shape shared by every resource: a page, a record, and iterators over all pages and records.
import type { z } from 'zod';
import { Invalid } from '../errors.js';
import { headerValue, type Query } from '../http.js';
import { type PaginateOptions, paginate, paginatePages } from '../paginate.js';
import type { ReadOptions, RequestCore } from '../request.js';
import { type ListQuery, type Page, pageSchema, type ResourceKind, singleSchema } from '../schemas.js';
import { type Decoder, decoder } from '../validate.js';

export interface IterateOptions extends ReadOptions, PaginateOptions {}

/** The list query without paging, for the iterators (they page themselves). */
export type Filters<Q extends ListQuery> = Omit<Q, 'page' | 'per_page'>;

export interface ReadResource<Item, Detail, Q extends ListQuery> {
  /** One page (`page`, `per_page` as given; the service's default is 25). */
  list(query?: Q, options?: ReadOptions): Promise<Page<Item>>;
  /** One record by ID; NotFound when it is not a record of this business. */
  get(id: number, options?: ReadOptions): Promise<Detail>;
  /** Every page in order (per_page 100 unless `perPage` is given); not cached unless `cache: 'use'`. */
  pages(filters?: Filters<Q>, options?: IterateOptions): AsyncGenerator<Page<Item>, void, undefined>;
  /** Every record in order; not cached unless `cache: 'use'`. */
  all(filters?: Filters<Q>, options?: IterateOptions): AsyncIterableIterator<Item>;
}

export interface CreateOptions {
  /** Reuse the caller's key (the MCP tool's `idempotency_key`); by default one is drawn per create. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface Created<T> {
  data: T;
  /** True when the service answered from its idempotency record (the create had already happened). */
  replayed: boolean;
  /** Replayed to a retry within this call: the call's own earlier attempt made the record, once. */
  replayedOnRetry: boolean;
  idempotencyKey: string;
}

/** Refuses an ID that cannot name a record, without spending a call. */
export function checkId(id: number): void {
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new Invalid(`The ID must be a positive whole number (got ${String(id).slice(0, 40)}).`, {
      id: ['must be a positive whole number'],
    });
  }
}

export function readResource<I extends z.ZodType<object>, D extends z.ZodType<object>, Q extends ListQuery>(
  core: RequestCore,
  kind: ResourceKind,
  item: I,
  detail: D,
): ReadResource<z.output<I>, z.output<D>, Q> {
  const path = `/api/v1/${kind}`;
  const page = decoder(pageSchema(item));
  const single = decoder(singleSchema(detail));
  type Item = z.output<I>;
  const list = (query?: Q, options?: ReadOptions): Promise<Page<Item>> =>
    core.read(kind, path, query as Query | undefined, page, options) as Promise<Page<Item>>;
  // A scan reads the service, not the cache, unless asked (`cache: 'use'`): an aggregate over every
  // record wants a current view, and a hundred pages of it would only crowd out the hot records.
  const fetcher = (filters: Filters<Q> | undefined, options: IterateOptions | undefined) => {
    const read: ReadOptions = { signal: options?.signal, cache: options?.cache ?? 'skip' };
    return (n: number, perPage: number) => list({ ...filters, page: n, per_page: perPage } as Q, read);
  };
  return {
    list,
    async get(id, options) {
      checkId(id);
      const envelope = await core.read(kind, `${path}/${id}`, undefined, single, options);
      return (envelope as { data: z.output<D> }).data;
    },
    pages: (filters, options) => paginatePages(fetcher(filters, options), options),
    all: (filters, options) => paginate(fetcher(filters, options), options),
  };
}

/** The decoder of a create's answer, `{data: record}`. */
export function createdDecoder<S extends z.ZodType<object>>(record: S) {
  return decoder(singleSchema(record));
}

/** A create with an Idempotency-Key reused by every retry; invalidates the lists of `kind`. */
export async function createRecord<S extends z.ZodType<object>>(
  core: RequestCore,
  invalidate: (kind: ResourceKind, id?: number) => void,
  kind: ResourceKind,
  answer: Decoder<z.ZodType<{ data: z.output<S> }>>,
  input: object,
  options: CreateOptions = {},
): Promise<Created<z.output<S>>> {
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const result = await core.call({
    method: 'POST',
    path: `/api/v1/${kind}`,
    body: input,
    decoder: answer,
    idempotencyKey,
    signal: options.signal,
  });
  const data = result.value.data;
  const id = (data as { id?: unknown }).id;
  invalidate(kind, typeof id === 'number' ? id : undefined);
  const replayed = headerValue(result.headers, 'idempotent-replayed') === 'true';
  return { data, replayed, replayedOnRetry: replayed && result.attempts > 1, idempotencyKey };
}
