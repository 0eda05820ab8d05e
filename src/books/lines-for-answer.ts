// The lines an answer sums, made whole while it waits when they fit: the invoices of its range whose lines the
// store lacks are read in the tool calls' lane (a few side by side; the client's pacing spaces them), when
// they fit about half a minute at the key's pace; else they go to the head of the background queue, and the
// answer is told how many wait and about how long the background will take.
import type { ApiClient } from '../api/client.js';
import type { BackgroundBudget } from './budget.js';
import { fetchInvoiceLines } from './lines.js';
import type { MirrorStore } from './store.js';
import type { Freshness, InvoiceFilter } from './types.js';

/** How long an answer may wait for the lines it needs, at the key's pace, before it answers with what is stored. */
const LINES_WAIT_MS = 30_000;
const SIDE_BY_SIDE = 4;

export interface LinesForAnswerDeps {
  api: ApiClient;
  store: MirrorStore;
  budget: BackgroundBudget;
  /** Puts these invoices first in the background's queue, and starts it if this process may. */
  queueFirst(missing: { id: number; stamp: string }[]): Promise<void>;
}

/** Calls the key allows in LINES_WAIT_MS: about 60 at 120 a minute (also while the limit is not known yet). */
function callsThatFit(deps: LinesForAnswerDeps): number {
  const limit = deps.api.stats().rateLimit.limit;
  return Math.max(1, Math.floor(((limit ?? 120) * LINES_WAIT_MS) / deps.budget.windowMs));
}

/** Null when the lines of every invoice in `filter` are stored once it returns; else what still waits. */
export async function linesForAnswer(
  deps: LinesForAnswerDeps,
  filter: InvoiceFilter,
  signal: AbortSignal,
  report: ((done: number, of: number) => void) | undefined,
): Promise<Freshness['linesPending'] | null> {
  const { store, api, budget } = deps;
  const missing = await store.read.linesMissing(filter);
  if (missing.length === 0) return null;
  if (missing.length > callsThatFit(deps)) {
    await deps.queueFirst(missing);
    const allowance = budget.busyAllowance();
    const seconds = allowance === null ? null : Math.ceil((missing.length / allowance) * (budget.windowMs / 1000));
    return { invoices: missing.length, seconds };
  }
  let done = 0;
  const queue = [...missing];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await fetchInvoiceLines(api, store, next, { background: false, signal });
      done++;
      report?.(done, missing.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SIDE_BY_SIDE, missing.length) }, worker));
  return null;
}
