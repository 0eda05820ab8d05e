// Each invoice's lines read once in this process, whoever asks: the background fetcher and an answer (a
// task's above all) both read missing lines, from lists each took at its start, so without this one could
// read an invoice the other is reading, or has just read. A read in flight is joined; one that ended after a
// list was taken is skipped by that list's reader.
import type { ApiClient } from '../api/client.js';
import { NotFound } from '../api/errors.js';
import { stampOf } from './record.js';
import type { MirrorStore } from './store.js';

export type Wanted = { id: number; stamp: string };

/** One invoice's lines, read from its detail and stored (stamped with the detail's own stamp). */
async function fetchInvoiceLines(
  api: ApiClient,
  store: MirrorStore,
  wanted: { id: number; stamp: string },
  options: { background: boolean; signal: AbortSignal },
): Promise<void> {
  try {
    const invoice = (await api.invoices.get(wanted.id, { cache: 'skip', ...options })) as Record<string, unknown>;
    // If the header moved on meanwhile, the lines are fetched again.
    await store.setLines(wanted.id, stampOf(invoice) ?? '', invoice.items);
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
    await store.setLines(wanted.id, wanted.stamp, []);
  }
}

export class LineReads {
  #ended = 0;
  readonly #inFlight = new Map<number, Promise<void>>();
  /** When each invoice's last read here ended (a count of reads ended); one entry an invoice at most. */
  readonly #endedAt = new Map<number, number>();

  constructor(
    private readonly api: ApiClient,
    private readonly store: MirrorStore,
  ) {}

  /** Taken with a list of missing lines: reads that end after it are `readSince` it. */
  mark(): number {
    return this.#ended;
  }

  readSince(id: number, mark: number): boolean {
    return (this.#endedAt.get(id) ?? -1) > mark;
  }

  /** Reads and stores one invoice's lines, or joins the read of them already under way here. */
  async read(wanted: Wanted, options: { background: boolean; signal: AbortSignal }): Promise<void> {
    const running = this.#inFlight.get(wanted.id);
    // A joined read that failed (its caller stopped, say) is this caller's to make again.
    if (running) return running.catch(() => this.read(wanted, options));
    const reading = fetchInvoiceLines(this.api, this.store, wanted, options)
      .then(() => void this.#endedAt.set(wanted.id, ++this.#ended))
      .finally(() => this.#inFlight.delete(wanted.id));
    this.#inFlight.set(wanted.id, reading);
    return reading;
  }
}
