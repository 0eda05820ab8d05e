// The mirror's sync: one reader per kind. A kind never read in full is read whole; after that, only what
// changed: `updated_since` from its watermark less an overlap, every page, through the client's pacing with
// the cache bypassed. Each page is stored with the events its diffs made in one write; the watermark moves
// only once every page of the read is stored, and never past the moment the read began, so a record
// changed while later pages were read is read again next time rather than skipped.
import type { ApiClient } from '../api/client.js';
import { hasNextPage } from '../api/paginate.js';
import type { Page } from '../api/schemas.js';
import { counted } from '../core/counted.js';
import { LeaseLost } from '../core/lease-lost.js';
import type { ServiceClock } from '../core/service-clock.js';
import { type Rec, stampOf } from '../store/record.js';
import type { KindMark, MirrorStore } from '../store/store.js';
import type { FreshProgress, MirroredKind } from '../store/types.js';
import type { BackgroundBudget } from './budget.js';
import { diffEvents } from './diff.js';

/** Stamps are whole seconds and our reading of the service's clock is good to about one. */
export const OVERLAP_MS = 5_000;
/** Records a list call asks for. */
export const PER_PAGE = 100;

export interface ReadOptions {
  /** A read a tool call waits for goes in the pacer's main lane; the sync's own rounds in the background lane. */
  background: boolean;
  signal?: AbortSignal | undefined;
  onProgress?: ((update: FreshProgress) => void) | undefined;
}

/** A read under way: a tool call joining it aborts `promoted`, which ends any wait for a background turn. */
interface RunningOptions extends ReadOptions {
  promoted: AbortController;
}

export interface SyncStats {
  /** List calls made. */
  calls: number;
  /** Records stored. */
  records: number;
  /** Events the diffs made. */
  events: number;
  /** Complete reads, per kind. */
  reads: Record<string, number>;
}

export interface SyncDeps {
  api: ApiClient;
  store: MirrorStore;
  clock: ServiceClock;
  budget: BackgroundBudget;
  /** Called after each stored page that made events, so they are published at once. */
  onEvents: () => void;
  /** Checked before each page: false when this process no longer holds the sync lease. */
  mayWrite: () => Promise<boolean>;
  now?: () => number;
  /** Records a list call asks for (PER_PAGE unless given). */
  perPage?: number;
}

/** Whether the record is as stored (the same JSON, field for field). */
const sameRecord = (stored: Rec | undefined, r: Rec): boolean => stored !== undefined && JSON.stringify(stored) === JSON.stringify(r);

/**
 * A complete read's mark: the watermark moves to the newest stamp read, never past the moment the read began
 * nor back; the read's time is that moment, in the service's clock and ours.
 */
function markOf(previous: KindMark | undefined, newest: number, startService: number, startedMs: number, clock: ServiceClock): KindMark {
  const before = previous?.watermark ? Date.parse(previous.watermark) : -Infinity;
  const watermark = Math.max(before, Math.min(Number.isFinite(newest) ? newest : startService, startService));
  return { watermark: new Date(watermark).toISOString(), syncedAt: clock.format(startService), syncedMs: startedMs };
}

/** Signs in if need be (its answer tells the service's time), then the service's time now (ms). */
async function readServiceClock(api: ApiClient, signal?: AbortSignal): Promise<number> {
  try {
    const session = await api.session(signal ? { signal } : {});
    api.serviceClock.heardSession(session.serviceExpiresAt, session.expiresAt);
  } catch {
    // The sync's own calls will report the problem; the last offset stands.
  }
  return api.serviceClock.now();
}

type Lister = (
  query: Record<string, unknown>,
  options: { cache: 'skip'; background: boolean; signal?: AbortSignal | undefined },
) => Promise<Page<Rec>>;

export class KindSync {
  readonly stats: SyncStats = { calls: 0, records: 0, events: 0, reads: {} };
  readonly #running = new Map<MirroredKind, { read: Promise<void>; options: RunningOptions }>();
  readonly #now: () => number;
  /** The baseline of first reads (service clock): the service's first answer to this process, or the first read's start. */
  #firstRead: number | null = null;

  constructor(private readonly deps: SyncDeps) {
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Reads one kind up to now; joins a read of it already under way. A tool call joining a background read
   * moves the rest of it to the main lane (no more spacing), and hears its progress.
   */
  sync(kind: MirroredKind, options: ReadOptions): Promise<void> {
    const running = this.#running.get(kind);
    if (running) {
      if (!options.background) {
        running.options.background = false;
        running.options.promoted.abort();
      }
      running.options.onProgress ??= options.onProgress;
      return running.read;
    }
    const mine = { ...options, promoted: new AbortController() };
    const read = this.#read(kind, mine).finally(() => this.#running.delete(kind));
    this.#running.set(kind, { read, options: mine });
    return read;
  }

  /**
   * Waits for the background's next turn, unless a tool call joins the read meanwhile: its wait ends then, and
   * the call goes in the main lane (a turn still queued is given up without taking a slot).
   */
  async #backgroundTurn(options: RunningOptions): Promise<void> {
    const { promoted } = options;
    if (promoted.signal.aborted) return;
    const signal = options.signal ? AbortSignal.any([options.signal, promoted.signal]) : promoted.signal;
    // Let go of once the turn is decided: a read of many pages would otherwise leave one listener a page.
    let onJoined = (): void => undefined;
    const joined = new Promise<'joined'>((resolve) => {
      onJoined = () => resolve('joined');
      promoted.signal.addEventListener('abort', onJoined, { once: true });
    });
    // The turn's failure is a value here, so that one ending after the race is never an unheard rejection.
    const turn = this.deps.budget.turn(signal).then(
      () => 'turn' as const,
      (err: unknown) => ({ err }),
    );
    const outcome = await Promise.race([turn, joined]).finally(() => promoted.signal.removeEventListener('abort', onJoined));
    if (typeof outcome === 'object' && (!promoted.signal.aborted || options.signal?.aborted)) throw outcome.err;
  }

  async #read(kind: MirroredKind, options: RunningOptions): Promise<void> {
    const { store, clock } = this.deps;
    const mark = (await store.marks()).get(kind);
    const startedMs = this.#now();
    let startService = Number.NaN;
    let newSince = -Infinity;
    const since = mark?.watermark ? new Date(Date.parse(mark.watermark) - OVERLAP_MS).toISOString() : undefined;
    let newest = -Infinity;
    let seen = 0;
    const perPage = this.deps.perPage ?? PER_PAGE;
    for (let page = 1; ; page++) {
      if (!(await this.deps.mayWrite())) throw new LeaseLost();
      if (options.background) await this.#backgroundTurn(options);
      const query: Record<string, unknown> = { page, per_page: perPage, ...(since ? { updated_since: since } : {}) };
      this.stats.calls++;
      const answer = await this.#lister(kind)(query, { cache: 'skip', background: options.background, signal: options.signal });
      if (page === 1) {
        // The service's clock when the read began, as its first answer tells it (the clock may have moved since
        // the last answer: a sandbox's is moved at will).
        startService = (await readServiceClock(this.deps.api, options.signal)) - (this.#now() - startedMs);
        // A first read announces what changed after the service first answered this process (to the second the
        // stamps carry): every answer a client was shown came after that, so a change made after what a client
        // was shown is announced even when it lands before the read begins (a read waits for the server to
        // go quiet). Never later than the read's own start.
        this.#firstRead ??= Math.floor(Math.min(startService, this.deps.api.serviceSince() ?? Number.POSITIVE_INFINITY) / 1000) * 1000;
        if (!mark) newSince = this.#firstRead;
      }
      const records = answer.data;
      const before = await store.stored(
        kind,
        records.map((r) => r.id),
      );
      const events = records.flatMap((r) => diffEvents(kind, before.get(r.id), r, { newSince, now: this.#now }));
      for (const r of records) {
        const stamp = stampOf(r);
        if (stamp) {
          clock.learnZone(stamp);
          newest = Math.max(newest, Date.parse(stamp));
        }
      }
      const last = !hasNextPage(answer, { page, perPage });
      // A record stored as it is now (the overlap reads some again) is not written again. The last page is
      // written with the kind's new mark, in one write.
      const changed = records.filter((r) => !sameRecord(before.get(r.id), r));
      await store.write(kind, changed, events, last ? markOf(mark, newest, startService, startedMs, clock) : undefined);
      seen += records.length;
      this.stats.records += records.length;
      this.stats.events += events.length;
      if (events.length > 0) this.deps.onEvents();
      if (!mark)
        options.onProgress?.({
          progress: seen,
          ...(typeof answer.meta?.total === 'number' ? { total: answer.meta.total } : {}),
          message: `reading ${kind}: ${counted(seen, 'record')}`,
        });
      if (last) break;
    }
    this.stats.reads[kind] = (this.stats.reads[kind] ?? 0) + 1;
  }

  #lister(kind: MirroredKind): Lister {
    const api = this.deps.api;
    return (query, options) => (api[kind].list as (q: unknown, o: unknown) => Promise<Page<Rec>>)(query, options);
  }
}
