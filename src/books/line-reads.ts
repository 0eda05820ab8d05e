// Each invoice's lines read once, whoever asks: the background fetcher and an answer (a task's above all) both
// read missing lines, from lists each took at its start, so without this one could read an invoice the other
// is reading, or has just read. In this process a read in flight is joined, and one that ended after a list
// was taken is skipped by that list's reader. Between processes on one store (a shared file, or Postgres) each
// read is claimed in the store first (a named lock: on Postgres it ends with its holder's connection, in a file
// after CLAIM_TTL_MS), and an invoice another process has claimed is left to it. Lines read while the database
// was lost are kept until it is back, not read again.
import type { ApiClient } from '../api/client.js';
import { NotFound } from '../api/errors.js';
import { isUnreachable } from '../core/unreachable.js';
import { holderIsGone, newHolder } from '../store/lease-holder.js';
import { stampOf } from '../store/record.js';
import type { MirrorStore } from '../store/store.js';

export type Wanted = { id: number; stamp: string };

/** How long a claim in a file holds if its holder stops without letting go (a read takes well under it). */
const CLAIM_TTL_MS = 60_000;

type ReadLines = { stamp: string; items: unknown };

/** One invoice's lines, read from its detail (stamped with the detail's own stamp). */
async function fetchInvoiceLines(
  api: ApiClient,
  wanted: { id: number; stamp: string },
  options: { background: boolean; signal: AbortSignal },
): Promise<ReadLines> {
  try {
    const invoice = (await api.invoices.get(wanted.id, { cache: 'skip', ...options })) as Record<string, unknown>;
    // If the header moved on meanwhile, the lines are fetched again.
    return { stamp: stampOf(invoice) ?? '', items: invoice.items };
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
    return { stamp: wanted.stamp, items: [] };
  }
}

export class LineReads {
  #ended = 0;
  readonly #inFlight = new Map<number, Promise<boolean>>();
  /** When each invoice's last read here ended (a count of reads ended); one entry an invoice at most. */
  readonly #endedAt = new Map<number, number>();
  /**
   * Lines read from the service whose storing failed because the database was lost: stored at the next read of
   * the invoice instead of read again. At most the reads in flight when it was lost.
   */
  readonly #unstored = new Map<number, ReadLines>();
  /** Who claims reads in the store; none for a store only this process opens (in memory). */
  readonly #holder: string | null;

  constructor(
    private readonly api: ApiClient,
    private readonly store: MirrorStore,
    private readonly now: () => number = Date.now,
  ) {
    this.#holder = store.path === null ? null : newHolder();
  }

  /** Taken with a list of missing lines: reads that end after it are `readSince` it. */
  mark(): number {
    return this.#ended;
  }

  readSince(id: number, mark: number): boolean {
    return (this.#endedAt.get(id) ?? -1) > mark;
  }

  /**
   * Reads and stores one invoice's lines, or joins the read of them already under way here: true once they are
   * read; false when another process on the store is reading them (its claim), so none is made here.
   */
  async read(wanted: Wanted, options: { background: boolean; signal: AbortSignal }): Promise<boolean> {
    const running = this.#inFlight.get(wanted.id);
    // A joined read that failed (its caller stopped, say) is this caller's to make again.
    if (running) return running.catch(() => this.read(wanted, options));
    const reading = this.#claimed(wanted, options)
      .then((read) => {
        if (read) this.#endedAt.set(wanted.id, ++this.#ended);
        return read;
      })
      .finally(() => this.#inFlight.delete(wanted.id));
    this.#inFlight.set(wanted.id, reading);
    return reading;
  }

  async #claimed(wanted: Wanted, options: { background: boolean; signal: AbortSignal }): Promise<boolean> {
    if (this.#holder === null) {
      await this.#readAndStore(wanted, options);
      return true;
    }
    const claim = `lines:${wanted.id}`;
    if (!(await this.#take(claim, this.#holder))) return false;
    try {
      // Another process may have read them since this one's list was taken, and let its claim go.
      if (!(await this.store.linesStored(wanted.id))) await this.#readAndStore(wanted, options);
      return true;
    } finally {
      await this.store.releaseLease(claim, this.#holder).catch(() => undefined);
    }
  }

  async #readAndStore(wanted: Wanted, options: { background: boolean; signal: AbortSignal }): Promise<void> {
    const lines = this.#unstored.get(wanted.id) ?? (await fetchInvoiceLines(this.api, wanted, options));
    try {
      await this.store.setLines(wanted.id, lines.stamp, lines.items);
      this.#unstored.delete(wanted.id);
    } catch (err) {
      if (isUnreachable(err)) this.#unstored.set(wanted.id, lines);
      throw err;
    }
  }

  /** The claim taken, or kept; a claim of a process on this machine that is gone (killed) is let go first. */
  async #take(claim: string, holder: string): Promise<boolean> {
    if (await this.store.takeLease(claim, holder, CLAIM_TTL_MS, this.now())) return true;
    const current = await this.store.leaseHolder(claim);
    if (current === null || !holderIsGone(current)) return false;
    await this.store.releaseLease(claim, current);
    return this.store.takeLease(claim, holder, CLAIM_TTL_MS, this.now());
  }
}
