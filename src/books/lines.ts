// Invoice lines come only from get_invoice, one invoice a call: fetched in the background, newest first,
// for every invoice whose header changed since its lines were stored.
import type { ApiClient } from '../api/client.js';
import { NotFound } from '../api/errors.js';
import type { BackgroundBudget } from './budget.js';
import { stampOf } from './record.js';
import type { MirrorStore } from './store.js';

export interface LinesDeps {
  api: ApiClient;
  store: MirrorStore;
  budget: BackgroundBudget;
  mayWrite: () => Promise<boolean>;
}

const BATCH = 50;

export class LinesFetcher {
  calls = 0;
  #running: Promise<void> | null = null;
  #again = false;
  constructor(private readonly deps: LinesDeps) {}

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
        const wanted = (await this.deps.store.linesWanted(BATCH + tried.size)).filter((w) => !tried.has(w.id)).slice(0, BATCH);
        if (wanted.length === 0 || signal.aborted) break;
        for (const { id, stamp } of wanted) {
          if (signal.aborted || !(await this.deps.mayWrite())) return;
          tried.add(id);
          await this.deps.budget.turn(signal);
          await this.#fetch(id, stamp, signal);
        }
      }
    } while (this.#again && !signal.aborted);
  }

  async #fetch(id: number, headerStamp: string, signal: AbortSignal): Promise<void> {
    this.calls++;
    try {
      const invoice = (await this.deps.api.invoices.get(id, { cache: 'skip', background: true, signal })) as Record<string, unknown>;
      // Stamped with the detail's own stamp: if the header moved on meanwhile, the lines are fetched again.
      await this.deps.store.setLines(id, stampOf(invoice) ?? '', invoice.items);
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      await this.deps.store.setLines(id, headerStamp, []);
    }
  }
}
