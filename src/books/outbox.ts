// The events the sync derived, and the webhooks a process received, are written with the records that made
// them; this publishes them to the bus, once, in every process on the mirror's file (so a second server's
// subscribers hear of the changes the lease holder found or another process was told of; the bus drops what
// its process heard already). Events written before this process started are not replayed. A store that can
// tell when events were written (Postgres' NOTIFY) has them published at once; every store is also looked at
// each second (or at each poll, for a mirror polling the service more often), which catches what a lost
// connection's notice missed.
import { every } from '../core/timers.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log/logger.js';
import type { MirrorStore } from '../store/store.js';

export const LOOK_EVERY_MS = 1_000;
const KEEP_MS = 24 * 3600 * 1000;

export class EventOutbox {
  #seq: number | null = null;
  #stopLooking: (() => void) | null = null;
  #draining: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  #relaying: unknown = null;
  #unwatch: (() => void) | null = null;
  published = 0;

  constructor(
    private readonly store: MirrorStore,
    private readonly bus: EventBus | null,
    private readonly logger: Logger,
    /** How often the store is looked at; a mirror that polls the service more often than each second looks as often. */
    private readonly lookEveryMs = LOOK_EVERY_MS,
  ) {}

  async start(): Promise<void> {
    if (!this.bus) return;
    this.#seq = await this.store.lastEventSeq();
    void this.store.pruneEvents(Date.now() - KEEP_MS).catch(() => undefined);
    this.#stopLooking = every(() => void this.drain(), this.lookEveryMs, true);
    this.#unwatch =
      (await this.store
        .watchEvents?.(() => void this.drain())
        .catch((err: unknown) => {
          this.logger.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'cannot hear of mirror events as they are written; looking every second',
          );
          return null;
        })) ?? null;
  }

  /** Publishes what is new; a call while one runs makes one more pass. */
  drain(): Promise<void> {
    if (!this.bus || this.#stopped) return Promise.resolve();
    if (this.#draining) {
      this.#again = true;
      return this.#draining;
    }
    this.#draining = this.#pass()
      .catch((err: unknown) =>
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'publishing mirror events failed; retrying'),
      )
      .finally(() => {
        this.#draining = null;
        if (this.#again) {
          this.#again = false;
          void this.drain();
        }
      });
    return this.#draining;
  }

  async #pass(): Promise<void> {
    if (this.#seq === null) return;
    for (;;) {
      const batch = await this.store.eventsAfter(this.#seq);
      if (batch.length === 0) return;
      for (const { seq, event } of batch) {
        this.#relaying = event;
        try {
          if (this.bus?.publish(event)) this.published++;
        } finally {
          this.#relaying = null;
        }
        this.#seq = seq;
      }
    }
  }

  /** Whether the bus is hearing this event from the file (a listener must not write it back). */
  isRelaying(event: unknown): boolean {
    return this.#relaying !== null && this.#relaying === event;
  }

  async stop(): Promise<void> {
    this.#stopLooking?.();
    this.#unwatch?.();
    await this.drain();
    this.#stopped = true;
  }
}
