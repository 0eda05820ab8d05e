// One pagination helper for every list: pages in order (page=1, 2, ...), ending on whichever the service
// gives first: an empty page, the last page of `meta`, a null `links.next`, or a short page. With
// `prefetch`, the next page is requested while the caller works on the current one.
import type { Page } from './schemas.js';

export interface PaginateOptions {
  /** Records per page, 1 to 100 (default 100). */
  perPage?: number;
  /** First page to read (default 1). */
  startPage?: number;
  /** Stop after this many pages. */
  maxPages?: number;
  /** Ask for the next page before the current one is consumed (default true). */
  prefetch?: boolean;
}

export type FetchPage<T> = (page: number, perPage: number) => Promise<Page<T>>;

/** Whether another page follows `page`, by the envelope's own signals. */
export function hasNextPage(page: Page<unknown>, requested: { page: number; perPage: number }): boolean {
  if (page.data.length === 0) return false;
  const meta = page.meta;
  const current = typeof meta?.current_page === 'number' ? meta.current_page : requested.page;
  if (typeof meta?.last_page === 'number') return current < meta.last_page;
  if (page.links && page.links.next === null) return false;
  if (typeof page.links?.next === 'string') return true;
  const perPage = typeof meta?.per_page === 'number' ? meta.per_page : requested.perPage;
  return page.data.length >= perPage;
}

/** Every page of a list, in order. */
export async function* paginatePages<T>(fetchPage: FetchPage<T>, options: PaginateOptions = {}): AsyncGenerator<Page<T>, void, undefined> {
  const perPage = options.perPage ?? 100;
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  const prefetch = options.prefetch ?? true;
  let number = options.startPage ?? 1;
  let pending: Promise<Page<T>> | null = fetchPage(number, perPage);
  let read = 0;
  try {
    while (pending) {
      const page: Page<T> = await pending;
      pending = null;
      read++;
      const more = read < maxPages && hasNextPage(page, { page: number, perPage });
      number++;
      if (more && prefetch) pending = fetchPage(number, perPage);
      yield page;
      if (more && !prefetch) pending = fetchPage(number, perPage);
    }
  } finally {
    // A caller that stops early leaves at most one prefetched page; its outcome no longer matters.
    pending?.catch(() => undefined);
  }
}

/**
 * Every record of a list, in order. A plain iterator over each page's array rather than an async
 * generator: a record costs one resolved promise, not a generator's round of promises. Consume it with
 * one `for await` (sequential `next()` calls).
 */
export function paginate<T>(fetchPage: FetchPage<T>, options: PaginateOptions = {}): AsyncIterableIterator<T> {
  return new Records(paginatePages(fetchPage, options));
}

class Records<T> implements AsyncIterableIterator<T> {
  readonly #pages: AsyncGenerator<Page<T>, void, undefined>;
  #buffer: readonly T[] = [];
  #index = 0;
  #done = false;

  constructor(pages: AsyncGenerator<Page<T>, void, undefined>) {
    this.#pages = pages;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#index < this.#buffer.length) return Promise.resolve({ done: false, value: this.#buffer[this.#index++] as T });
    return this.#refill();
  }

  async return(): Promise<IteratorResult<T>> {
    this.#done = true;
    this.#buffer = [];
    await this.#pages.return(undefined);
    return { done: true, value: undefined };
  }

  async #refill(): Promise<IteratorResult<T>> {
    while (!this.#done) {
      const r = await this.#pages.next();
      if (r.done) break;
      this.#buffer = r.value.data;
      this.#index = 0;
      if (this.#buffer.length > 0) return { done: false, value: this.#buffer[this.#index++] as T };
    }
    this.#done = true;
    return { done: true, value: undefined };
  }
}
