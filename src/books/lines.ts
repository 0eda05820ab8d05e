// Invoice lines come only from get_invoice, one invoice a call: fetched in the background, newest first,
// for every invoice whose header changed since its lines were stored; those an answer is waiting for first.
import type { ApiClient } from '../api/client.js';
import type { MirrorStore } from '../store/store.js';
import type { BackgroundBudget } from './budget.js';
import type { LineReads } from './line-reads.js';

export interface LinesDeps {
  api: ApiClient;
  store: MirrorStore;
  budget: BackgroundBudget;
  mayWrite: () => Promise<boolean>;
  reads: LineReads;
}

const BATCH = 50;

export class LinesFetcher {
  calls = 0;
  #running: Promise<void> | null = null;
  #again = false;
  /** Invoices an answer is waiting for: fetched before the rest. */
  #first: { id: number; stamp: string }[] = [];
  constructor(private readonly deps: LinesDeps) {}

  /** Puts these invoices at the head of the queue (the next pass takes them first). */
  prefer(wanted: readonly { id: number; stamp: string }[]): void {
    const queued = new Set(this.#first.map((w) => w.id));
    this.#first.push(...wanted.filter((w) => !queued.has(w.id)));
  }

  /** Fetches until every invoice's lines match its header; a call while running makes one more pass. */
  run(signal: AbortSignal): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#loop(signal).finally(() => (this.#running = null));
    return this.#running;
  }

  async #loop(signal: AbortSignal): Promise<void> {
    do {
      this.#again = false;
      // Each invoice once a pass: one whose header the sync has not caught up with waits for the next pass.
      const tried = new Set<number>();
      for (;;) {
        const mark = this.deps.reads.mark();
        const first = this.#first.splice(0, BATCH).filter((w) => !tried.has(w.id));
        const rest = first.length > 0 ? [] : await this.deps.store.linesWanted(BATCH + tried.size);
        const wanted = [...first, ...rest.filter((w) => !tried.has(w.id))].slice(0, BATCH);
        if (wanted.length === 0 || signal.aborted) break;
        for (const w of wanted) {
          if (signal.aborted || !(await this.deps.mayWrite())) return;
          tried.add(w.id);
          if (this.deps.reads.readSince(w.id, mark)) continue;
          await this.deps.budget.turn(signal);
          // One another process on the store is reading is left to it.
          if (await this.deps.reads.read(w, { background: true, signal })) this.calls++;
        }
      }
    } while (this.#again && !signal.aborted);
  }
}
