// The tenants a process serves: one per business key, made on the first request a token of that key sends
// and kept while the process runs. A tenant none of whose requests is in flight (an open subscription stream
// is one) for the idle time rests its books mirror, which the next use opens again. A tenant has its own
// client of the service (its session and its pacing: the key's calls a minute shared by every grant of the key) and its own server factories (reading only,
// or reading and creating drafts, as the grant allows), and its own events: the bus its mirror, its webhooks
// and its subscribers share. Nothing is shared between tenants.
//
// A live tenant's webhook endpoint is kept in memory (its key, its bus, its signing secret unsealed, whether its
// mirror is open), so that a delivery costs no query and no unsealing. Kept only while this process hears every
// change to the endpoints (the database notifies each process at the commit of a secret given, replaced or
// forgotten, whichever process made it: store/schema.ts), and for WEBHOOK_TARGET_TTL_MS at most; dropped at
// once on any such change, when the tenant rests or is forgotten, and when the notifying connection is lost.
import type { ApiClient } from '../../api/client.js';
import { REAL_TIMERS, type Timers } from '../../core/timers.js';
import type { EventBus } from '../../events/bus.js';
import type { WebhookTarget } from '../../events/receiver.js';
import type { Readiness } from '../../http/health.js';
import type { ServerFactory } from '../../mcp/server.js';
import type { EventFeed } from '../../transports/feed-handlers.js';
import { KEY_CONFIRM_MS } from './key-watch.js';
import type { TenantRecord, TenantStore } from './tenant-store.js';

export interface Tenant {
  record: TenantRecord;
  api: ApiClient;
  /** Its events; `wanted` opens its mirror, whose sync and outbox feed the bus. */
  events: EventFeed;
  /** Opens its mirror if it is not open: true once it is, false when it could not open (said in the log). */
  openMirror(): Promise<boolean>;
  /** Whether subscriptions are offered: something feeds the bus (background syncs, or webhooks). */
  live: boolean;
  /** Whether its key still works at the service, confirmed within the last 30 s (key-watch.ts); false once refused. */
  keyStillWorks(): Promise<boolean>;
  /** The server factory for a grant that may write, or only read. */
  factory(writes: boolean): Promise<ServerFactory>;
  /** Its books mirror's state for /readyz. */
  readiness(): Promise<Readiness>;
  /** Closes its books mirror until it is needed again (the tenant is idle). */
  rest(): Promise<void>;
  close(): Promise<void>;
}

interface Use {
  inFlight: number;
  timer: unknown;
  /** While in use: the next confirmation of its key (an open stream has no request to ask for one). */
  confirm: unknown;
}

export type MakeTenant = (record: TenantRecord, secret: string, webhooks: boolean) => Tenant;

/**
 * How long an endpoint's target is kept without a word from the database: the bound on an old secret in a
 * process whose notifying connection died without its socket saying so (the notice itself comes a moment after the change's commit).
 */
export const WEBHOOK_TARGET_TTL_MS = 30_000;

/** An endpoint kept in memory. */
interface KeptTarget {
  tenant: Tenant;
  secret: string;
  bus: EventBus;
  /** Its tenant's mirror is open: a delivery need not ask for it (it is dropped when the tenant rests). */
  open: boolean;
  until: number;
}

export class Tenants {
  readonly #byKey = new Map<string, Promise<Tenant | null>>();
  readonly #uses = new Map<string, Use>();
  /** The endpoints kept, by webhook id. */
  readonly #targets = new Map<string, KeptTarget>();
  /** Counts the changes heard: a target read before one is not kept. */
  #changes = 0;
  /** Whether this process hears now every change to the endpoints (its LISTEN is up): nothing is kept until it does. */
  #hearing = false;

  constructor(
    readonly store: TenantStore,
    readonly make: MakeTenant,
    /** How long a tenant goes with nothing in flight before its mirror rests. */
    readonly idleMs: number,
    /** The timers of the key confirmations while a tenant is in use. */
    readonly timers: Timers = REAL_TIMERS,
    /** The clock of the endpoints kept. */
    readonly now: () => number = Date.now,
  ) {}

  /** The endpoint of a webhook id, kept in memory; null when it is not (then `loadTarget` reads it). */
  keptTarget(webhookId: string): WebhookTarget | null {
    const kept = this.#targets.get(webhookId);
    if (!kept) return null;
    if (this.#hearing && kept.until > this.now()) return this.#target(kept);
    this.#targets.delete(webhookId);
    return null;
  }

  /** The endpoint of a webhook id from the store (its key's signing secret unsealed), kept; null when none. */
  async loadTarget(webhookId: string): Promise<WebhookTarget | null> {
    const changes = this.#changes;
    const keyId = await this.store.keyOfWebhook(webhookId);
    const secret = keyId === undefined ? undefined : await this.store.webhookSecret(keyId);
    const tenant = keyId === undefined || secret === undefined ? null : await this.get(keyId);
    if (!tenant || secret === undefined) return null;
    const kept: KeptTarget = { tenant, secret, bus: tenant.events.bus, open: false, until: this.now() + WEBHOOK_TARGET_TTL_MS };
    // Only what no change can have outdated: read while this process heard every change, none since.
    if (changes === this.#changes && this.#hearing) this.#targets.set(webhookId, kept);
    return this.#target(kept);
  }

  #target(kept: KeptTarget): WebhookTarget {
    const target = { id: kept.tenant.record.keyId, secret: kept.secret, bus: kept.bus };
    if (kept.open) return target;
    return {
      ...target,
      ready: async () => {
        kept.open = await kept.tenant.openMirror();
      },
    };
  }

  /**
   * An endpoint's secret or tenant may have changed (a notice, or the notifying connection made again after a
   * loss): none kept is trusted. `hearing`: whether this process hears every change from now on.
   */
  webhooksChanged(hearing: boolean): void {
    this.#hearing = hearing;
    this.#changes++;
    this.#targets.clear();
  }

  #dropTargets(keyId: string): void {
    for (const [id, kept] of this.#targets) if (kept.tenant.record.keyId === keyId) this.#targets.delete(id);
  }

  /**
   * Marks a use of the key's tenant begun (a request, a webhook delivery); the function returned marks it
   * done. Once none is in flight for the idle time, the tenant's mirror rests.
   */
  using(keyId: string): () => void {
    const use = this.#uses.get(keyId) ?? { inFlight: 0, timer: undefined, confirm: undefined };
    this.#uses.set(keyId, use);
    if (use.inFlight++ === 0) this.#confirmLater(keyId, use);
    REAL_TIMERS.clear(use.timer);
    use.timer = undefined;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--use.inFlight > 0) return;
      this.timers.clear(use.confirm);
      // On real time: the injected timers are the key confirmations'.
      use.timer = REAL_TIMERS.set(
        () => {
          use.timer = undefined;
          void this.#rest(keyId);
        },
        this.idleMs,
        true,
      );
    };
  }

  /** While the tenant stays in use, its key is confirmed every KEY_CONFIRM_MS (free when a call did it meanwhile). */
  #confirmLater(keyId: string, use: Use): void {
    use.confirm = this.timers.set(
      () => {
        if (use.inFlight === 0) return;
        this.#confirmLater(keyId, use);
        void this.#byKey
          .get(keyId)
          ?.then((tenant) => tenant?.keyStillWorks())
          .catch(() => undefined);
      },
      KEY_CONFIRM_MS,
      true,
    );
  }

  async #rest(keyId: string): Promise<void> {
    const use = this.#uses.get(keyId);
    if (!use || use.inFlight > 0 || use.timer !== undefined) return;
    this.#uses.delete(keyId);
    this.#dropTargets(keyId);
    await (await this.#byKey.get(keyId)?.catch(() => null))?.rest();
  }

  /** The tenants' mirrors, counted by state, and how many open ones' stores do not answer; never which. */
  async readiness(): Promise<Readiness> {
    const tenants = (await Promise.all([...this.#byKey.values()].map((t) => t.catch(() => null)))).filter((t) => t !== null);
    const states = await Promise.all(tenants.map((t) => t.readiness()));
    const mirrors: Record<string, number> = {};
    let notAnswering = 0;
    for (const { ready, detail } of states) {
      const state = String((detail.mirror as { state?: unknown } | undefined)?.state);
      mirrors[state] = (mirrors[state] ?? 0) + 1;
      if (!ready) notAnswering++;
    }
    return { ready: notAnswering === 0, detail: { tenants: { count: tenants.length, mirrors, storesNotAnswering: notAnswering } } };
  }

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
    this.#changes++;
    this.#dropTargets(keyId);
    REAL_TIMERS.clear(this.#uses.get(keyId)?.timer);
    this.timers.clear(this.#uses.get(keyId)?.confirm);
    this.#uses.delete(keyId);
    await this.store.forget(keyId);
    await (await tenant)?.close();
  }

  async close(): Promise<void> {
    const all = [...this.#byKey.values()];
    this.#byKey.clear();
    this.webhooksChanged(false);
    for (const use of this.#uses.values()) {
      REAL_TIMERS.clear(use.timer);
      this.timers.clear(use.confirm);
    }
    this.#uses.clear();
    await Promise.allSettled(all.map(async (t) => (await t)?.close()));
  }
}
