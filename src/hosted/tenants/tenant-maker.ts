// How one tenant (one business and key) is made in a hosted process: its client of the service (its renewals
// first in the deployment's sign-in budget), its key's watch, its bus, its resting books mirror and its server
// factories (reading only, or reading and creating drafts, as a grant allows).
import { createApiClient } from '../../api/client.js';
import { createEventBus } from '../../events/bus.js';
import type { LogSink } from '../../log/deferred-logger.js';
import type { Logger } from '../../log/logger.js';
import type { ToolSelection } from '../../mcp/select-tools.js';
import { createServerFactory, type ServerFactory } from '../../mcp/server.js';
import type { SharedPostgres } from '../../store/postgres/shared.js';
import type { ServiceSignIns } from '../limits/service-sign-ins.js';
import { KeyWatch } from './key-watch.js';
import { restingMirror } from './resting-mirror.js';
import { type PlanTenantMirror, tenantSchema } from './tenant-mirror.js';
import type { TenantRecord } from './tenant-store.js';
import type { MakeTenant } from './tenants.js';

/** What of hosted mode's settings a tenant is made with. */
export interface TenantSettings {
  /** Plans a tenant's books mirror (as the desktop's is planned), in the place given. */
  planMirror: PlanTenantMirror;
  selection: Omit<ToolSelection, 'scopes' | 'books'>;
  confirmWrites: boolean;
  /** Options of each tenant's client of the service. */
  clientOptions: Parameters<typeof createApiClient>[1]['options'];
  /** The clock of each tenant's client and of its key's confirmations; the real one unless given. */
  now?: () => number;
}

export type KeyEnded = (record: TenantRecord, words: string) => void;

/** How long a renewal of a tenant's service session waits for room (the client's own wait for the rate limit). */
const RENEWAL_WAIT_MS = 30_000;

export interface TenantDeps {
  logger: Logger;
  sink: LogSink;
  ended: KeyEnded;
  shared: SharedPostgres;
  budget: ServiceSignIns;
}

export function tenantMaker(settings: TenantSettings, { logger, sink, ended, shared, budget }: TenantDeps): MakeTenant {
  return (record, secret, webhooks) => {
    const now = settings.now ?? Date.now;
    const busy = (): boolean => {
      const window = api.stats().rateLimit;
      return window.blockedUntil > 0 || window.remaining === 0 || window.queued > 0;
    };
    const watch = new KeyWatch({ ping: () => api.ping(), onRefused: (words) => ended(record, words), now, busy });
    const api = createApiClient(
      { baseUrl: record.baseUrl, keyId: record.keyId, secret },
      {
        logger,
        options: settings.clientOptions,
        ...(settings.now ? { now: settings.now } : {}),
        onSignInRefused: (err) => watch.refuse(err.serviceMessage ?? err.message),
        onKeyAccepted: (sentAt) => watch.confirmed(sentAt),
        // Renewals come first in the deployment's budget: people's sign-ins leave room for them.
        signInAllowance: () => budget.take({ kind: 'renewal', keyId: record.keyId }, settings.clientOptions?.maxWaitMs ?? RENEWAL_WAIT_MS),
      },
    );
    const bus = createEventBus({ invalidate: api.invalidate });
    const place = { schema: tenantSchema(api.baseUrl, api.keyId), shared };
    const mirror = restingMirror(() => settings.planMirror(api, bus, place));
    // A mirror that cannot open leaves the bus to the webhooks this process receives.
    const openMirror = (): Promise<boolean> =>
      mirror.start().then(
        () => true,
        (err: unknown) => {
          logger.warn(
            { err: err instanceof Error ? err.message : String(err) },
            "a tenant's mirror could not open: its events come from webhooks only",
          );
          return false;
        },
      );
    const wanted = async (): Promise<void> => void (await openMirror());
    const live = mirror.syncing || webhooks;
    const factories = new Map<boolean, Promise<ServerFactory>>();
    return {
      record,
      api,
      events: { bus, wanted },
      openMirror,
      live,
      keyStillWorks: () => watch.stillWorks(),
      factory(writes) {
        let made = factories.get(writes);
        if (!made) {
          const selection = { ...settings.selection, readOnly: settings.selection.readOnly || !writes, scopes: record.scopes };
          made = createServerFactory(
            { api, books: mirror.books, logger: sink },
            { selection, confirmWrites: settings.confirmWrites, events: { bus, live, wanted } },
          );
          factories.set(writes, made);
        }
        return made;
      },
      readiness: () => mirror.readiness(),
      async rest() {
        // Its schema's name is a digest, not the key: safe to log.
        if (await mirror.rest())
          logger.debug({ schema: place.schema }, "a tenant's books mirror rests: no request of it for the idle time");
      },
      async close() {
        await mirror.close();
        await api.close();
      },
    };
  };
}
