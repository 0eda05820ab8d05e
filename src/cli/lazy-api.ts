// The client, loaded on first use: the tools list must not wait for the HTTP stack (undici, the cache,
// the pacing) to load, so the server answers its first requests as fast as a bare one.
import type { ApiClient, ApiClientDeps, ClientConfig } from '../api/client.js';
import type { ReadResource } from '../api/endpoints/resource.js';
import { ServiceClock } from '../core/service-clock.js';
import type { Logger } from '../log/logger.js';

type Resource = 'customers' | 'invoices' | 'quotes' | 'payments' | 'products';

/** One resource of the client whose every method loads the client first. */
function loadingResource<R extends Resource>(name: R, load: () => Promise<ApiClient>): ApiClient[R] {
  const read: ReadResource<unknown, unknown, Record<string, unknown>> = {
    list: async (query, options) => (await load())[name].list(query as never, options),
    get: async (id, options) => (await load())[name].get(id, options),
    pages: async function* (filters, options) {
      yield* (await load())[name].pages(filters as never, options) as AsyncGenerator<never>;
    },
    all: async function* (filters, options) {
      yield* (await load())[name].all(filters as never, options) as AsyncGenerator<never>;
    },
  };
  const create =
    name === 'customers' || name === 'invoices'
      ? {
          create: async (input: never, options: never) =>
            ((await load()) as never as Record<R, { create: (input: never, options: never) => unknown }>)[name].create(input, options),
        }
      : {};
  return { ...read, ...create } as unknown as ApiClient[R];
}

export function lazyApiClient(
  config: ClientConfig,
  loadLogger: () => Promise<Logger>,
  deps: Omit<ApiClientDeps, 'logger'> = {},
): ApiClient {
  let loading: Promise<ApiClient> | null = null;
  let loaded: ApiClient | null = null;
  // Told to the client once it loads: who listens for its holds, and a hold another process met before then.
  const holdListeners = new Set<(untilMs: number) => void>();
  let heldUntil = 0;
  // The service's clock is kept here and handed to the client: read without loading it or going through it.
  const serviceClock = new ServiceClock(deps.now ?? Date.now);
  const load = (): Promise<ApiClient> =>
    (loading ??= Promise.all([import('../api/client.js'), loadLogger()]).then(([{ createApiClient }, logger]) => {
      const client = createApiClient(config, { ...deps, logger, serviceClock });
      client.rateLimitHold.onHeld((untilMs) => {
        for (const listener of holdListeners) listener(untilMs);
      });
      client.rateLimitHold.holdUntil(heldUntil);
      loaded = client;
      return client;
    }));

  return {
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    keyId: config.keyId,
    mode: config.keyId.startsWith('svck_live_') ? 'live' : 'test',
    customers: loadingResource('customers', load),
    invoices: loadingResource('invoices', load),
    quotes: loadingResource('quotes', load),
    payments: loadingResource('payments', load),
    products: loadingResource('products', load),
    ping: async (options) => (await load()).ping(options),
    session: async (options) => (await load()).session(options),
    serviceClock,
    serviceNow: () => serviceClock.serviceNow(),
    serviceSince: () => serviceClock.firstHeard(),
    invalidate: (kind, id) => loaded?.invalidate(kind, id),
    clearCache: () => loaded?.clearCache(),
    stats: () =>
      loaded?.stats() ?? {
        cache: { hits: 0, misses: 0, entries: 0, bytes: 0 },
        rateLimit: { limit: null, remaining: null, inFlight: 0, queued: 0, blockedUntil: 0 },
        signIns: 0,
      },
    estimateMs: (calls) => loaded?.estimateMs(calls) ?? null,
    rateLimitHold: {
      onHeld(listener) {
        holdListeners.add(listener);
        return () => holdListeners.delete(listener);
      },
      holdUntil(untilMs) {
        if (loaded) loaded.rateLimitHold.holdUntil(untilMs);
        else heldUntil = Math.max(heldUntil, untilMs);
      },
    },
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
