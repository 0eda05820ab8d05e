// The sync lease in the store: of the processes on one mirror file, only its holder reads the service.
// Renewed at most every third of its life, so a holder that believes it holds it has at least two thirds of
// it left; released on stop. A process without it asks again each second (a small read): after a crash it
// takes over from a holder on this machine whose process is gone (see lease-holder.ts), from one whose
// Postgres connection ended, else when it lapses.
import { holderIsGone, newHolder } from '../store/lease-holder.js';
import type { MirrorStore } from '../store/store.js';

const LEASE = 'sync';
const LEASE_TTL_MS = 30_000;
/** How often a process that does not hold the lease asks for it again. */
const RETRY_MS = 1_000;

export class SyncLease {
  readonly #holder = newHolder();
  #held = false;
  #renewedAt = -Infinity;

  constructor(
    private readonly store: MirrorStore,
    private readonly now: () => number,
    private readonly stopped: AbortSignal,
  ) {}

  get held(): boolean {
    return this.#held;
  }

  /** True while this process holds the lease (taking it when free). */
  async mayWrite(): Promise<boolean> {
    if (this.stopped.aborted) return false;
    if (this.now() - this.#renewedAt < (this.#held ? LEASE_TTL_MS / 3 : RETRY_MS)) return this.#held;
    const current = await this.store.leaseHolder(LEASE);
    if (current !== null && current !== this.#holder && holderIsGone(current)) await this.store.releaseLease(LEASE, current);
    this.#held = await this.store.takeLease(LEASE, this.#holder, LEASE_TTL_MS, this.now());
    this.#renewedAt = this.now();
    return this.#held;
  }

  async release(): Promise<void> {
    if (this.#held) await this.store.releaseLease(LEASE, this.#holder).catch(() => undefined);
    this.#held = false;
  }
}
