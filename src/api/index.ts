// The public face of the client: the entry, its types, the errors and the schemas.

export { type CacheMode, type CacheOptions, type CacheStats, DEFAULT_CACHE_OPTIONS } from './cache.js';
export {
  type ApiClient,
  type ApiClientDeps,
  type ClientConfig,
  type ClientOptions,
  type ClientOptionsInput,
  type ClientStats,
  createApiClient,
  DEFAULT_CLIENT_OPTIONS,
  type SessionInfo,
} from './client.js';
export type { CustomersApi } from './endpoints/customers.js';
export type { InvoicesApi } from './endpoints/invoices.js';
export type { PaymentsApi, ProductsApi, QuotesApi } from './endpoints/reads.js';
export type { Created, CreateOptions, Filters, IterateOptions, ReadResource } from './endpoints/resource.js';
export * from './errors.js';
export { type Query, type QueryValue, queryString } from './http.js';
export type { RateLimitState } from './pacing.js';
export { type FetchPage, hasNextPage, type PaginateOptions, paginate, paginatePages } from './paginate.js';
export type { ReadOptions } from './request.js';
export * from './schemas.js';
