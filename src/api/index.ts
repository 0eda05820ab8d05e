// The public face of the client: the entry, its types, the errors and the schemas.
export {
  createApiClient,
  DEFAULT_CLIENT_OPTIONS,
  type ApiClient,
  type ApiClientDeps,
  type ClientConfig,
  type ClientOptions,
  type ClientOptionsInput,
  type ClientStats,
  type SessionInfo,
} from './client.js';
export { DEFAULT_CACHE_OPTIONS, type CacheMode, type CacheOptions, type CacheStats } from './cache.js';
export type { CustomersApi } from './endpoints/customers.js';
export type { InvoicesApi } from './endpoints/invoices.js';
export type { PaymentsApi, ProductsApi, QuotesApi } from './endpoints/reads.js';
export type { CreateOptions, Created, Filters, IterateOptions, ReadResource } from './endpoints/resource.js';
export * from './errors.js';
export { queryString, type Query, type QueryValue } from './http.js';
export type { RateLimitState } from './pacing.js';
export { hasNextPage, paginate, paginatePages, type FetchPage, type PaginateOptions } from './paginate.js';
export type { ReadOptions } from './request.js';
export * from './schemas.js';
export { isLoopbackHost } from './url.js';
