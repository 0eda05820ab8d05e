// The tenants a process serves: one per business key, made on the first request a token of that key sends
// and kept while the process runs. A tenant has its own client of the service (its session and its pacing:
// the key's calls a minute shared by every grant of the key) and its own server factories (reading only,
// or reading and creating drafts, as the grant allows), and its own events: the bus its mirror, its webhooks
// and its subscribers share. Nothing is shared between tenants.
import type { ApiClient } from '../../api/client.js';
import type { EventFeed } from '../../mcp/feed-handlers.js';
import type { ServerFactory } from '../../mcp/server.js';
import type { TenantRecord, TenantStore } from './tenant-store.js';

export interface Tenant {
  record: TenantRecord;
  api: ApiClient;
  /** Its events; `wanted` opens its mirror, whose sync and outbox feed the bus. */
  events: EventFeed;
  /** Whether subscriptions are offered: something feeds the bus (background syncs, or webhooks). */
  live: boolean;
  /** The server factory for a grant that may write, or only read. */
  factory(writes: boolean): Promise<ServerFactory>;
  close(): Promise<void>;
}

export type MakeTenant = (record: TenantRecord, secret: string, webhooks: boolean) => Tenant;

export class Tenants {
  readonly #byKey = new Map<string, Promise<Tenant | null>>();

  constructor(
    readonly store: TenantStore,
    readonly make: MakeTenant,
  ) {}

  /** The tenant of a key, or null when the key is not signed in here (never, or forgotten). */
  get(keyId: string): Promise<Tenant | null> {
    let tenant = this.#byKey.get(keyId);
    if (!tenant) {
      tenant = this.store.find(keyId).then((found) => (found ? this.make(found.record, found.secret, found.webhooks) : null));
      // A key not found now may be signed in later: only a tenant found is kept.
      tenant.then(
        (t) => t ?? this.#byKey.delete(keyId),
        () => this.#byKey.delete(keyId),
      );
      this.#byKey.set(keyId, tenant);
    }
    return tenant;
  }

  /** Drops a key's tenant here (its client closed) and forgets the key in the store. */
  async forget(keyId: string): Promise<void> {
    const tenant = this.#byKey.get(keyId);
    this.#byKey.delete(keyId);
    await this.store.forget(keyId);
    await (await tenant)?.close();
  }

  async close(): Promise<void> {
    const all = [...this.#byKey.values()];
    this.#byKey.clear();
    await Promise.allSettled(all.map(async (t) => (await t)?.close()));
  }
}
