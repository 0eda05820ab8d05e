// The polling fallback: every interval, each of invoices, payments, quotes and products is listed with
// `updated_since` from its own watermark (the newest stamp seen, in the service's clock, less an overlap;
// the first read of each list is a silent baseline of the last day, so old records are not news),
// all pages, through the client (its pacing applies, the cache is bypassed). Derived events go to the bus.
// It spends at most `budgetShare` of the rate limit per window and defers the rest; polls never overlap.
import type { Logger } from 'pino';
import type { ApiClient } from '../api/client.js';
import { hasNextPage } from '../api/paginate.js';
import type { Page } from '../api/schemas.js';
import type { EventBus } from './bus.js';
import { Deriver, POLLED_KINDS, stampOf, type PolledKind } from './derive.js';

export interface PollerOptions {
  api: ApiClient;
  bus: EventBus;
  /** 0 = the poller never starts and makes no call. */
  intervalSeconds: number;
  logger: Logger;
  /** Share of X-RateLimit-Limit the poller may spend per window (default 0.1). */
  budgetShare?: number;
  windowSeconds?: number;
  /** Our clock, ms. */
  now?: () => number;
}

export interface PollerStats {
  polls: number;
  /** List calls made. */
  calls: number;
  /** Ticks skipped (a poll still running) plus lists deferred for the budget. */
  skipped: number;
  events: number;
}

export interface Poller {
  stop(): Promise<void>;
  stats(): PollerStats;
}

/** The limit assumed before the service has said (the spec's 120 a minute). */
const ASSUMED_LIMIT = 120;
const OVERLAP_MS = 5_000;
/**
 * The first read of each list reaches this far back and publishes nothing: it learns the records' current
 * states and the service's own notion of "latest" (its clock may be ahead of ours or behind, by up to this).
 */
const BASELINE_MS = 24 * 3600 * 1000;
const PER_PAGE = 100;

type Rec = Record<string, unknown> & { id: number };
type Lister = (query: Filters & { page: number; per_page: number }, signal: AbortSignal) => Promise<Page<Rec>>;

/** At most `share` of the rate limit in any `windowMs`, by our clock. */
export class CallBudget {
  readonly #times: number[] = [];
  constructor(
    private readonly share: number,
    private readonly windowMs: number,
    private readonly limit: () => number | null,
    private readonly now: () => number,
  ) {}

  /** Takes one call, or false when the window's share is spent. */
  take(): boolean {
    const t = this.now();
    while (this.#times.length > 0 && (this.#times[0] as number) <= t - this.windowMs) this.#times.shift();
    if (this.#times.length >= Math.max(1, Math.floor(this.share * (this.limit() ?? ASSUMED_LIMIT)))) return false;
    this.#times.push(t);
    return true;
  }
}

/**
 * The shortest time a round of polling (one call per list, at least) can take within the budget, in
 * seconds: the interval when the budget allows it, longer when the limit is too small for the interval.
 */
export function roundSeconds(intervalSeconds: number, limit: number, share: number, windowSeconds: number): number {
  const callsPerWindow = Math.max(1, Math.floor(share * limit));
  return Math.max(intervalSeconds, Math.ceil((windowSeconds * POLLED_KINDS.length) / callsPerWindow));
}

type Filters = { updated_since?: string; low_stock?: boolean; track_stock?: boolean };

class PollLoop {
  readonly stats: PollerStats = { polls: 0, calls: 0, skipped: 0, events: 0 };
  readonly #deriver: Deriver;
  readonly #budget: CallBudget;
  readonly #listers: Record<PolledKind, Lister>;
  readonly #watermark: Map<PolledKind, number>;
  /** Lists whose baseline read is complete; until then their changes are learnt, not published. */
  readonly #baselined = new Set<PolledKind>();
  readonly #readMs = new Map<PolledKind, number>();
  readonly #abort = new AbortController();
  #seeded = false;
  #next = 0;
  #running: Promise<void> | null = null;
  #missedTick = false;
  #stopped = false;

  constructor(
    private readonly bus: EventBus,
    api: ApiClient,
    private readonly logger: Logger,
    private readonly now: () => number,
    share: number,
    windowMs: number,
  ) {
    this.#deriver = new Deriver(now);
    this.#budget = new CallBudget(share, windowMs, () => api.stats().rateLimit.limit, now);
    const start = now() - BASELINE_MS;
    this.#watermark = new Map(POLLED_KINDS.map((k) => [k, start]));
    const read = { cache: 'skip' as const };
    this.#listers = {
      invoices: (q, signal) => api.invoices.list(q, { ...read, signal }) as Promise<Page<Rec>>,
      payments: (q, signal) => api.payments.list(q, { ...read, signal }) as Promise<Page<Rec>>,
      quotes: (q, signal) => api.quotes.list(q, { ...read, signal }) as Promise<Page<Rec>>,
      products: (q, signal) => api.products.list(q, { ...read, signal }) as Promise<Page<Rec>>,
    };
  }

  tick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      // A poll longer than the interval (a slow service, pacing) is followed at once by the next, not a
      // whole interval later; ticks missed meanwhile make one poll, not several.
      this.stats.skipped++;
      this.#missedTick = true;
      return;
    }
    this.#running = this.#poll()
      .catch((err: unknown) => {
        if (!this.#stopped) this.logger.warn({ err: err instanceof Error ? { name: err.name, message: err.message } : String(err) }, 'poll failed; the next tick goes on');
      })
      .finally(() => {
        this.#running = null;
        if (this.#missedTick) {
          this.#missedTick = false;
          this.tick();
        }
      });
  }

  /** Resolves when the poll under way (if any) is over. */
  async settled(): Promise<void> {
    await this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await this.#running;
  }

  async #poll(): Promise<void> {
    this.stats.polls++;
    if (!this.#seeded) {
      const low: number[] = [];
      if (!(await this.#readAll(this.#listers.products, { low_stock: true, track_stock: true }, (r) => low.push(r.id)))) return void this.stats.skipped++;
      this.#deriver.seedLow(low);
      this.#seeded = true;
    }
    // Starts where the last poll stopped for the budget, so no list starves.
    for (let i = 0; i < POLLED_KINDS.length; i++) {
      const kind = POLLED_KINDS[this.#next] as PolledKind;
      if (!(await this.#pollKind(kind))) {
        this.stats.skipped++;
        this.logger.debug({ kind }, 'poll budget spent: the rest waits for the next tick');
        return;
      }
      this.#next = (this.#next + 1) % POLLED_KINDS.length;
    }
  }

  async #pollKind(kind: PolledKind): Promise<boolean> {
    const mark = this.#watermark.get(kind) as number;
    // The overlap covers the last read's length too: a record changed while later pages were read may carry
    // a stamp older than the newest seen on them.
    const since = new Date(mark - OVERLAP_MS - (this.#readMs.get(kind) ?? 0)).toISOString();
    const records: Rec[] = [];
    const began = this.now();
    const done = await this.#readAll(this.#listers[kind], { updated_since: since }, (r) => records.push(r));
    this.#readMs.set(kind, Math.max(0, this.now() - began));
    // Events of a partly read list still go out; the watermark moves only once the whole list is read.
    let newest = mark;
    for (const record of records) {
      const stamp = Date.parse(stampOf(record) ?? '');
      if (Number.isFinite(stamp) && stamp > newest) newest = stamp;
      const events = this.#deriver.derive(kind, record);
      if (this.#baselined.has(kind)) for (const event of events) if (this.bus.publish(event)) this.stats.events++;
    }
    if (done) {
      this.#watermark.set(kind, newest);
      this.#baselined.add(kind);
    }
    return done;
  }

  /** Every page of one list; false when the budget ran out first (the list is read again next tick). */
  async #readAll(lister: Lister, filters: Filters, each: (r: Rec) => void): Promise<boolean> {
    for (let page = 1; ; page++) {
      if (!this.#budget.take()) return false;
      this.stats.calls++;
      const answer = await lister({ ...filters, page, per_page: PER_PAGE }, this.#abort.signal);
      for (const r of answer.data) each(r);
      if (!hasNextPage(answer, { page, perPage: PER_PAGE })) return true;
    }
  }
}

export function startPoller(options: PollerOptions): Poller {
  if (!(options.intervalSeconds > 0)) {
    const idle: PollerStats = { polls: 0, calls: 0, skipped: 0, events: 0 };
    return { stop: async () => undefined, stats: () => ({ ...idle }) };
  }
  const share = options.budgetShare ?? 0.1;
  const logger = options.logger.child({ component: 'poller' });
  const windowSeconds = options.windowSeconds ?? 60;
  const loop = new PollLoop(options.bus, options.api, logger, options.now ?? Date.now, share, windowSeconds * 1000);
  // The first poll at once: the low-stock baseline is taken at the start, not an interval later.
  loop.tick();
  // Once the service has told its limit: say so if the interval asks for more than the budget gives.
  void loop.settled().then(() => {
    const limit = options.api.stats().rateLimit.limit;
    if (limit === null) return;
    const seconds = roundSeconds(options.intervalSeconds, limit, share, windowSeconds);
    if (seconds > options.intervalSeconds) {
      logger.warn(
        { notice: true, intervalSeconds: options.intervalSeconds, limit, windowSeconds, roundSeconds: seconds },
        `SVC_POLL_SECONDS=${options.intervalSeconds} needs more calls than ${Math.round(share * 100)} % of the rate limit (${limit} per ${windowSeconds} s) allows: changes will be found about every ${seconds} s`,
      );
    }
  });
  const timer = setInterval(() => loop.tick(), options.intervalSeconds * 1000);
  timer.unref();
  logger.info({ intervalSeconds: options.intervalSeconds, budgetShare: share }, 'poller started');
  return {
    async stop() {
      clearInterval(timer);
      await loop.stop();
    },
    stats: () => ({ ...loop.stats }),
  };
}
