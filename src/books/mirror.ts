// The books mirror at work: background rounds of the sync (within the budget, by the lease holder only),
// the lines fetcher, the events outbox published to the bus in every process on the file, webhooks written
// straight into the store, and the freshness contract (ensureFresh) for whatever reads it.

import type { ApiClient } from '../api/client.js';
import { RateLimited } from '../api/errors.js';
import { counted } from '../core/counted.js';
import { LeaseLost } from '../core/lease-lost.js';
import type { ServiceClock } from '../core/service-clock.js';
import { MirrorStoreFull } from '../core/store-full.js';
import { every, pause, REAL_TIMERS, type Timers } from '../core/timers.js';
import type { EventBus } from '../events/bus.js';
import type { BooksEvent } from '../events/event.js';
import type { Logger } from '../log/logger.js';
import type { Rec } from '../store/record.js';
import type { KindMark, MirrorStore } from '../store/store.js';
import {
  type Books,
  type EnsureFreshOptions,
  type Freshness,
  type FreshProgress,
  MIRRORED_KINDS,
  type MirroredKind,
} from '../store/types.js';
import { BackgroundBudget, type BudgetOptions } from './budget.js';
import { freshness, holderCaughtUp, progressTally } from './freshness.js';
import { SyncLease } from './lease.js';
import { LineReads } from './line-reads.js';
import { LinesFetcher } from './lines.js';
import { linesForAnswer, readingLinesMessage } from './lines-for-answer.js';
import { EventOutbox, LOOK_EVERY_MS } from './outbox.js';
import { KindSync, type SyncStats } from './sync.js';

export interface MirrorOptions {
  api: ApiClient;
  store: MirrorStore;
  /** Where derived events go; null = nowhere (no subscriptions). */
  bus: EventBus | null;
  logger: Logger;
  /** The longest gap between background rounds (s); 0 = no rounds (ensureFresh and webhooks only). */
  pollSeconds: number;
  /** The kinds it holds (all by default). */
  kinds?: readonly MirroredKind[];
  /** Fetch invoice lines in the background (default true). */
  lines?: boolean;
  /** 'on-first-use': no background work until the first ensureFresh (the embedded sandbox). */
  rounds?: 'now' | 'on-first-use';
  /** A kind read this recently is fresh without a call (ms). */
  freshMs?: number;
  budget?: BudgetOptions;
  now?: () => number;
  /** The timer between background rounds; a real one unless given. */
  timers?: Timers;
  /** Records a list call of the sync asks for (100 unless given). */
  perPage?: number;
  /**
   * How often it looks at the store for what other processes on it asked or did (kinds to read, events written,
   * kinds read for it) when it is not told at once (ms); unless given, 250 ms, and a second for events.
   */
  lookEveryMs?: number;
}

export interface MirrorStats extends SyncStats {
  lineCalls: number;
  rounds: number;
  holder: boolean;
}

export interface Mirror {
  readonly books: Books;
  readonly store: MirrorStore;
  stats(): MirrorStats;
  /** One background round now (reads every kind, then starts the lines fetcher); resolves when the reads end. */
  round(): Promise<void>;
  /** Resolves when the lines fetcher has nothing left (or stops). */
  linesSettled(): Promise<void>;
  stop(): Promise<void>;
}

const WANTS_EVERY_MS = 250;
const CLOCK_SLACK_MS = 2_000;

class MirrorRuntime {
  readonly abort = new AbortController();
  readonly lease: SyncLease;
  readonly sync: KindSync;
  readonly lines: LinesFetcher | null;
  /** Each invoice's lines read once here, by the background and the answers alike. */
  readonly lineReads: LineReads;
  readonly outbox: EventOutbox;
  readonly #budget: BackgroundBudget;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #kinds: readonly MirroredKind[];
  readonly #freshMs: number;
  readonly #clock: ServiceClock;
  rounds = 0;
  #roundTimer: unknown = null;
  readonly #timers: Timers;
  #roundsStarted = false;
  linesRun: Promise<void> = Promise.resolve();
  roundRun: Promise<void> = Promise.resolve();

  constructor(private readonly options: MirrorOptions) {
    const { api, store } = options;
    this.#logger = options.logger.child({ component: 'mirror' });
    this.#now = options.now ?? Date.now;
    this.#kinds = options.kinds ?? MIRRORED_KINDS;
    this.#freshMs = options.freshMs ?? 5_000;
    this.#timers = options.timers ?? REAL_TIMERS;
    this.#budget = new BackgroundBudget(api, { now: this.#now, ...options.budget });
    this.lease = new SyncLease(store, this.#now, this.abort.signal);
    this.lineReads = new LineReads(api, store, this.#now);
    const mayWrite = (): Promise<boolean> => this.lease.mayWrite();
    const pollMs = options.pollSeconds * 1000;
    const polledLook = pollMs > 0 ? Math.min(LOOK_EVERY_MS, pollMs) : LOOK_EVERY_MS;
    this.outbox = new EventOutbox(store, options.bus, this.#logger, options.lookEveryMs ?? polledLook);
    const clock = api.serviceClock;
    this.#clock = clock;
    this.sync = new KindSync({
      api,
      store,
      clock,
      budget: this.#budget,
      mayWrite,
      onEvents: () => this.outbox.drain(),
      now: this.#now,
      perPage: options.perPage,
    });
    this.lines = options.lines === false ? null : new LinesFetcher({ api, store, budget: this.#budget, mayWrite, reads: this.lineReads });
  }

  /** Logs a background failure (not one caused by stopping or by losing the lease); the next round goes on. */
  quiet(what: string): (err: unknown) => void {
    return (err) => {
      if (this.abort.signal.aborted || err instanceof LeaseLost) return;
      this.#logger.warn(
        { err: err instanceof Error ? { name: err.name, message: err.message } : String(err) },
        `${what} failed; the next round goes on`,
      );
    };
  }

  async round(): Promise<void> {
    if (!(await this.lease.mayWrite())) return;
    this.rounds++;
    for (const kind of this.#kinds) {
      if (this.abort.signal.aborted) return;
      await this.sync.sync(kind, { background: true, signal: this.abort.signal });
      this.#tellIfWidened();
    }
    if (this.lines && this.#kinds.includes('invoices'))
      this.linesRun = this.lines.run(this.abort.signal).catch(this.quiet('fetching lines'));
  }

  #widenedTold = false;

  /**
   * Says once, to the user as well (a notice), when SVC_POLL_SECONDS asks for rounds faster than the
   * background's share allows while tools use the key: rounds then come as the share allows, not as asked.
   */
  #tellIfWidened(): void {
    const allowance = this.#budget.busyAllowance();
    if (this.#widenedTold || allowance === null) return;
    const roundMs = (this.#budget.windowMs * this.#kinds.length) / allowance;
    if (roundMs <= this.options.pollSeconds * 1000) return;
    const roundSeconds = Math.ceil(roundMs / 1000);
    this.#widenedTold = true;
    const limit = this.options.api.stats().rateLimit.limit;
    this.#logger.warn(
      { notice: true, pollSeconds: this.options.pollSeconds, limit, roundSeconds },
      `SVC_POLL_SECONDS=${this.options.pollSeconds} needs more calls than the mirror's share of the rate limit (${limit} per ${this.#budget.windowMs / 1000} s) allows while tools are in use: changes are then found about every ${roundSeconds} s`,
    );
  }

  /**
   * The gap to the next round: the poll interval, or less when a tenth of the limit, spread evenly, allows; a
   * second at least, unless the interval itself is finer (SVC_POLL_MS, the tests' setting).
   */
  #roundGapMs(): number {
    this.#tellIfWidened();
    const limit = this.options.api.stats().rateLimit.limit;
    const even = limit === null ? Infinity : (this.#budget.windowMs * this.#kinds.length) / Math.max(1, Math.floor(limit / 10));
    const pollMs = this.options.pollSeconds * 1000;
    return Math.max(Math.min(1_000, pollMs), Math.min(pollMs, even));
  }

  scheduleRounds(): void {
    if (this.#roundsStarted || this.options.pollSeconds <= 0 || this.abort.signal.aborted) return;
    this.#roundsStarted = true;
    const go = (): void => {
      this.roundRun = this.round()
        .catch(this.quiet('sync round'))
        .finally(() => {
          if (this.abort.signal.aborted) return;
          this.#roundTimer = this.#timers.set(go, this.#roundGapMs(), true);
        });
    };
    go();
  }

  /**
   * A webhook's record goes into the store at once, with its event, so every process on the file announces it
   * (each bus drops a change it heard already); the store keeps neither when it holds the record stamped later.
   * Its kind is synced soon after (it may touch others).
   */
  async onWebhook(event: BooksEvent): Promise<void> {
    if (event.source !== 'webhook' || this.outbox.isRelaying(event)) return;
    const kind = event.record.kind as MirroredKind;
    if (!this.#kinds.includes(kind) || typeof event.data.id !== 'number') return;
    await this.options.store.write(kind, [event.data as Rec], [event]);
    void this.outbox.drain();
    if (await this.lease.mayWrite())
      void this.sync.sync(kind, { background: true, signal: this.abort.signal }).catch(this.quiet('sync after a webhook'));
  }

  /**
   * A kind is fresh when it was read moments ago. A webhook does not make it so: its record is current, but the
   * change it reports may have touched other records of the kind (a payment, two invoices), which only a read
   * of the kind brings in.
   */
  #isFresh(mark: KindMark | undefined): boolean {
    return mark !== undefined && this.#now() - mark.syncedMs < this.#freshMs && this.#readLately(mark);
  }

  /**
   * Read lately by the service's clock too, as its answers since tell it: a clock moved past midnight moves the
   * business's today (and the statuses time moves), so a read from before it is not fresh (the as-of is whole
   * seconds, and the reading of the service's clock good to about one: hence the slack). A process that has
   * heard no answer yet (another holds the lease) has only our clock, which may differ by hours: it trusts ours.
   */
  #readLately(mark: KindMark): boolean {
    const serviceNow = this.#clock.serviceNow();
    return serviceNow === null || serviceNow - Date.parse(mark.syncedAt) < this.#freshMs + CLOCK_SLACK_MS;
  }

  async ensureFresh(wanted: readonly MirroredKind[], opts: EnsureFreshOptions = {}): Promise<Freshness> {
    this.scheduleRounds();
    const { store } = this.options;
    const signal = opts.signal ? AbortSignal.any([opts.signal, this.abort.signal]) : this.abort.signal;
    // The lines' progress goes on from the records' (a client is told only progress that rises).
    let recordsProgress = 0;
    const onProgress =
      opts.onProgress &&
      ((update: FreshProgress): void => {
        recordsProgress = Math.max(recordsProgress, update.progress);
        opts.onProgress?.(update);
      });
    const tally = progressTally(onProgress);
    const marks = await store.marks();
    const neverRead = (opts.labels ?? []).filter((kind) => !wanted.includes(kind) && marks.get(kind) === undefined);
    const stale = [...wanted.filter((kind) => !this.#isFresh(marks.get(kind))), ...neverRead];
    if (stale.length > 0 && !(await this.lease.mayWrite())) {
      // Another process holds the lease: it reads them for us.
      const asked = this.#now();
      await store.requestSync(stale, asked);
      await holderCaughtUp(store, stale, asked, this.#now, signal, this.options.lookEveryMs);
    } else {
      // Each kind is its own list: read side by side, one round trip's wait instead of one per kind.
      const reads = stale.map((kind) => this.sync.sync(kind, { background: false, signal, onProgress: tally(kind) }));
      const readBefore = stale.every((kind) => marks.get(kind) !== undefined);
      const failed = (await Promise.allSettled(reads)).map((s) => failureOf(s, readBefore)).find((err) => err !== null);
      if (failed) return this.#asStored(wanted, failed, { signal, onProgress, lookEveryMs: this.options.lookEveryMs });
    }
    // Nothing read since the marks were: they are the as-of's.
    const fresh = await freshness(store, wanted, {
      signal,
      onProgress,
      lookEveryMs: this.options.lookEveryMs,
      ...(stale.length === 0 ? { marks } : {}),
    });
    if (!opts.lines || !this.lines) return fresh;
    const report =
      opts.onProgress &&
      ((done: number, of: number): void => {
        const expectedMs = this.options.api.estimateMs(of - done);
        const message = opts.wholeLines ? readingLinesMessage(done, of, expectedMs) : `Invoice lines: ${done} of ${of}`;
        const progress = { progress: recordsProgress + done, total: recordsProgress + of, message };
        opts.onProgress?.(expectedMs === null ? progress : { ...progress, expectedMs });
      });
    const pending = await linesForAnswer(
      {
        api: this.options.api,
        store,
        budget: this.#budget,
        reads: this.lineReads,
        pause: (ms, pauseSignal) => pause(this.#timers, ms, pauseSignal),
        queueFirst: async (missing) => {
          this.lines?.prefer(missing);
          if (this.lines && (await this.lease.mayWrite()))
            this.linesRun = this.lines.run(this.abort.signal).catch(this.quiet('fetching lines'));
        },
      },
      opts.lines(fresh.today),
      signal,
      report,
      opts.wholeLines === true,
    );
    return pending ? { ...fresh, linesPending: pending } : fresh;
  }

  /** The answer from what is stored, when a read could not be made: with the as-of, and why in a warning. */
  async #asStored(wanted: readonly MirroredKind[], failed: Error, options: Parameters<typeof freshness>[2]): Promise<Freshness> {
    const fresh = await freshness(this.options.store, wanted, options);
    const why =
      failed instanceof RateLimited
        ? `the service's rate limit is reached (retry after ${counted(failed.retryAfter, 'second')}), so this answer is from the mirror as of ${fresh.asOf}`
        : `${failed.message}: the mirror is not being updated, so this answer is as of ${fresh.asOf}`;
    return { ...fresh, warning: why };
  }

  /** A 429 another process on the store met holds this process's calls of the key too, until it ends. */
  async followRateHold(): Promise<void> {
    const until = await this.options.store.rateHold();
    if (until > this.#now()) this.options.api.rateLimitHold.holdUntil(until);
  }

  /** The lease holder reads at once what other processes on the file asked for. */
  async answerWants(): Promise<void> {
    if (!(await this.lease.mayWrite())) return;
    for (const kind of await this.options.store.takeWants()) await this.sync.sync(kind, { background: false, signal: this.abort.signal });
  }

  async stop(): Promise<void> {
    this.abort.abort();
    if (this.#roundTimer) this.#timers.clear(this.#roundTimer);
    await this.roundRun;
    await this.linesRun;
    await this.outbox.stop();
    await this.lease.release();
  }
}

/**
 * A read's failure, when it failed: a full store is reported with the answer, and so is the key's limit when
 * every kind was read before (the answer is the mirror's, with its as-of); anything else is thrown.
 */
function failureOf(settled: PromiseSettledResult<unknown>, readBefore: boolean): MirrorStoreFull | RateLimited | null {
  if (settled.status === 'fulfilled') return null;
  if (settled.reason instanceof MirrorStoreFull) return settled.reason;
  if (readBefore && settled.reason instanceof RateLimited) return settled.reason;
  throw settled.reason;
}

export async function startMirror(options: MirrorOptions): Promise<Mirror> {
  const runtime = new MirrorRuntime(options);
  const unlisten = options.bus?.listen((event) => void runtime.onWebhook(event).catch(runtime.quiet('storing a webhook record')));
  // Also keeps the holder's lease alive between rounds.
  const stopWants = every(
    () => {
      void runtime.answerWants().catch(runtime.quiet('reading for another process'));
      void runtime.followRateHold().catch(runtime.quiet("reading another process's rate-limit hold"));
    },
    options.lookEveryMs ?? WANTS_EVERY_MS,
    true,
  );
  const unshare = options.api.rateLimitHold.onHeld(
    (untilMs) => void options.store.shareRateHold(untilMs).catch(runtime.quiet('sharing a rate-limit hold')),
  );
  await runtime.outbox.start();
  if (options.rounds !== 'on-first-use') runtime.scheduleRounds();
  const { sync, lines } = runtime;
  return {
    books: {
      ensureFresh: (kinds, opts) => runtime.ensureFresh(kinds, opts),
      neverRead: async (kinds) => {
        const marks = await options.store.marks();
        return kinds.filter((kind) => !marks.has(kind));
      },
      read: options.store.read,
      snapshot: (work) => options.store.snapshot(work),
      tasks: options.store.tasks,
    },
    store: options.store,
    stats: () => ({
      ...sync.stats,
      reads: { ...sync.stats.reads },
      lineCalls: lines?.calls ?? 0,
      rounds: runtime.rounds,
      holder: runtime.lease.held,
    }),
    round: () => runtime.round(),
    linesSettled: () => runtime.linesRun,
    async stop() {
      stopWants();
      unlisten?.();
      unshare();
      await runtime.stop();
    },
  };
}
