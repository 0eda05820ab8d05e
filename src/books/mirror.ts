// The books mirror at work: background rounds of the sync (within the budget, by the lease holder only),
// the lines fetcher, the events outbox published to the bus in every process on the file, webhooks written
// straight into the store, and the freshness contract (ensureFresh) for whatever reads it.
import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import type { EventBus } from '../events/bus.js';
import type { BooksEvent } from '../events/event.js';
import type { Logger } from '../logger.js';
import { BackgroundBudget, type BudgetOptions } from './budget.js';
import { EventOutbox } from './outbox.js';
import { freshness, holderCaughtUp, progressTally } from './freshness.js';
import { LinesFetcher } from './lines.js';
import { stampOf, type Rec } from './rows.js';
import { ServiceClock } from './service-clock.js';
import type { MirrorStore } from './store.js';
import { KindSync, LeaseLost, type SyncStats } from './sync.js';
import { MIRRORED_KINDS, type Books, type EnsureFreshOptions, type Freshness, type MirroredKind } from './types.js';

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
  /** A kind read this recently (or just updated by a webhook) is fresh without a call (ms). */
  freshMs?: number;
  budget?: BudgetOptions;
  now?: () => number;
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

const LEASE = 'sync';
const LEASE_TTL_MS = 30_000;
const WANTS_EVERY_MS = 250;

export async function startMirror(options: MirrorOptions): Promise<Mirror> {
  const { api, store, bus } = options;
  const logger = options.logger.child({ component: 'mirror' });
  const now = options.now ?? Date.now;
  const kinds = options.kinds ?? MIRRORED_KINDS;
  const freshMs = options.freshMs ?? 5_000;
  const holder = randomUUID();
  const abort = new AbortController();
  const budget = new BackgroundBudget(api, { now, ...options.budget });
  const clock = new ServiceClock(api, now);
  let held = false;
  let renewedAt = -Infinity;
  const mayWrite = async (): Promise<boolean> => {
    if (abort.signal.aborted) return false;
    if (now() - renewedAt < LEASE_TTL_MS / 3) return held;
    held = await store.takeLease(LEASE, holder, LEASE_TTL_MS, now());
    renewedAt = now();
    return held;
  };
  const outbox = new EventOutbox(store, bus, logger);
  const sync = new KindSync({ api, store, clock, budget, mayWrite, onEvents: () => outbox.drain(), now });
  const lines = options.lines === false ? null : new LinesFetcher({ api, store, budget, mayWrite });
  const webhookAt = new Map<MirroredKind, number>();
  let rounds = 0;
  let roundTimer: NodeJS.Timeout | null = null;
  let roundsStarted = false;
  let linesRun: Promise<void> = Promise.resolve();
  let roundRun: Promise<void> = Promise.resolve();

  const quiet = (what: string) => (err: unknown) => {
    if (abort.signal.aborted || err instanceof LeaseLost) return;
    logger.warn({ err: err instanceof Error ? { name: err.name, message: err.message } : String(err) }, `${what} failed; the next round goes on`);
  };

  async function round(): Promise<void> {
    if (!(await mayWrite())) return;
    rounds++;
    for (const kind of kinds) {
      if (abort.signal.aborted) return;
      await sync.sync(kind, { background: true, signal: abort.signal });
    }
    if (lines && kinds.includes('invoices')) linesRun = lines.run(abort.signal).catch(quiet('fetching lines'));
  }

  /** The gap to the next round: the poll interval, or less when a tenth of the limit, spread evenly, allows. */
  function roundGapMs(): number {
    const limit = api.stats().rateLimit.limit;
    const even = limit === null ? Infinity : (budget.windowMs * kinds.length) / Math.max(1, Math.floor(limit / 10));
    return Math.max(1_000, Math.min(options.pollSeconds * 1000, even));
  }

  function scheduleRounds(): void {
    if (roundsStarted || options.pollSeconds <= 0 || abort.signal.aborted) return;
    roundsStarted = true;
    const go = (): void => {
      roundRun = round()
        .catch(quiet('sync round'))
        .finally(() => {
          if (abort.signal.aborted) return;
          roundTimer = setTimeout(go, roundGapMs());
          roundTimer.unref();
        });
    };
    go();
  }

  const unlisten = bus?.listen((event) => void onWebhook(event).catch(quiet('storing a webhook record')));
  async function onWebhook(event: BooksEvent): Promise<void> {
    if (event.source !== 'webhook') return;
    const kind = event.record.kind as MirroredKind;
    if (!kinds.includes(kind) || typeof event.data['id'] !== 'number') return;
    const incoming = event.data as Rec;
    const stored = (await store.stored(kind, [incoming.id])).get(incoming.id);
    if (!stored || (stampOf(incoming) ?? '') >= (stampOf(stored) ?? '')) await store.write(kind, [incoming], []);
    webhookAt.set(kind, now());
    // The change may touch other records (a payment, its invoices): a sync of the kind soon after.
    if (await mayWrite()) void sync.sync(kind, { background: true, signal: abort.signal }).catch(quiet('sync after a webhook'));
  }

  async function ensureFresh(wanted: readonly MirroredKind[], opts: EnsureFreshOptions = {}): Promise<Freshness> {
    scheduleRounds();
    const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
    const tally = progressTally(opts.onProgress);
    const marks = await store.marks();
    const stale = wanted.filter((kind) => {
      const mark = marks.get(kind);
      return !(mark !== undefined && (now() - mark.syncedMs < freshMs || now() - (webhookAt.get(kind) ?? -Infinity) < freshMs));
    });
    if (stale.length > 0 && !(await mayWrite())) {
      // Another process holds the lease: it reads them for us.
      const asked = now();
      await store.requestSync(stale, asked);
      await holderCaughtUp(store, stale, asked, now, signal);
    } else {
      for (const kind of stale) await sync.sync(kind, { background: false, signal, onProgress: tally(kind) });
    }
    return freshness(store, wanted, { signal, onProgress: opts.onProgress });
  }

  // The lease holder answers other processes' requests at once (and so keeps its lease between rounds).
  const wantsTimer = setInterval(() => {
    void (async () => {
      if (!(await mayWrite())) return;
      for (const kind of await store.takeWants()) await sync.sync(kind, { background: false, signal: abort.signal });
    })().catch(quiet('reading for another process'));
  }, WANTS_EVERY_MS);
  wantsTimer.unref();

  await outbox.start();
  if (options.rounds !== 'on-first-use') scheduleRounds();
  return {
    books: { ensureFresh, read: store.read },
    store,
    stats: () => ({ ...sync.stats, reads: { ...sync.stats.reads }, lineCalls: lines?.calls ?? 0, rounds, holder: held }),
    round,
    linesSettled: () => linesRun,
    async stop() {
      abort.abort();
      if (roundTimer) clearTimeout(roundTimer);
      clearInterval(wantsTimer);
      unlisten?.();
      await roundRun;
      await linesRun;
      await outbox.stop();
      if (held) await store.releaseLease(LEASE, holder).catch(() => undefined);
    },
  };
}
