// The lines an answer sums, made whole while it waits when they fit: the invoices of its range whose lines the
// store lacks are read in its caller's lane, a person's or a task's (a few side by side; the key's pacer spaces
// them), when they fit about half a minute at the key's pace (a task's, however many); else they go to the
// head of the background queue, and the answer is told how many wait and about how long that takes.
import type { ApiClient } from '../api/client.js';
import { counted, nounFor } from '../core/counted.js';
import type { MirrorStore } from '../store/store.js';
import type { Freshness, InvoiceFilter } from '../store/types.js';
import type { BackgroundBudget } from './budget.js';
import type { LineReads } from './line-reads.js';

/** How long an answer may wait for the lines it needs, at the key's pace, before it answers with what is stored. */
const LINES_WAIT_MS = 30_000;
const SIDE_BY_SIDE = 4;
/** How often an answer looks whether the lines another process on the store is reading have landed. */
const LANDED_LOOK_MS = 100;

export interface LinesForAnswerDeps {
  api: ApiClient;
  store: MirrorStore;
  budget: BackgroundBudget;
  reads: LineReads;
  /** Waits `ms` (or until `signal` aborts): between looks at lines another process on the store is reading. */
  pause(ms: number, signal: AbortSignal): Promise<void>;
  /** Puts these invoices first in the background's queue, and starts it if this process may. */
  queueFirst(missing: { id: number; stamp: string }[]): Promise<void>;
}

/** Calls the key allows in LINES_WAIT_MS: about 60 at 120 a minute (also while the limit is not known yet). */
function callsThatFit(deps: LinesForAnswerDeps): number {
  const limit = deps.api.stats().rateLimit.limit;
  return Math.max(1, Math.floor(((limit ?? 120) * LINES_WAIT_MS) / deps.budget.windowMs));
}

/** "312 of 1,543": figures as a person writes them. */
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * A task's status while it reads lines: "reading the lines of 312 of 1,543 invoices, about 2 minutes at your
 * key's limit", `expectedMs` being how long the rest takes at the key's pace (what is left of the window
 * now, then whole windows); null when the key's limit is not known yet.
 */
export function readingLinesMessage(done: number, of: number, expectedMs: number | null): string {
  const head = `reading the lines of ${count(done)} of ${count(of)} ${nounFor(of, 'invoice')}`;
  if (expectedMs === null) return head;
  const seconds = Math.max(1, Math.ceil(expectedMs / 1000));
  const about = seconds < 120 ? counted(seconds, 'second') : counted(Math.ceil(seconds / 60), 'minute');
  return `${head}, about ${about} at your key's limit`;
}

/**
 * Null when the lines of every invoice in `filter` are stored once it returns; else what still waits. With
 * `whole`, every missing line is read while it waits, however many (a task's answer).
 */
export async function linesForAnswer(
  deps: LinesForAnswerDeps,
  filter: InvoiceFilter,
  signal: AbortSignal,
  report: ((done: number, of: number) => void) | undefined,
  whole = false,
): Promise<Freshness['linesPending'] | null> {
  const { store, budget, reads } = deps;
  const mark = reads.mark();
  const missing = await store.linesMissing(filter);
  if (missing.length === 0) return null;
  if (!whole && missing.length > callsThatFit(deps)) {
    await deps.queueFirst(missing);
    const allowance = budget.busyAllowance();
    const seconds = allowance === null ? null : Math.ceil((missing.length / allowance) * (budget.windowMs / 1000));
    return { invoices: missing.length, seconds };
  }
  let done = 0;
  if (whole) report?.(0, missing.length);
  const tick = (): void => {
    done++;
    report?.(done, missing.length);
  };
  // Those another process on the store is reading are left to it, then looked for until they land; one whose
  // claim ends without its lines (its holder stopped) is read here on the next look.
  let elsewhere = await readSideBySide(reads, missing, mark, signal, tick);
  while (elsewhere.length > 0 && !signal.aborted) {
    await deps.pause(LANDED_LOOK_MS, signal);
    const still = new Set((await store.linesMissing(filter)).map((w) => w.id));
    for (const w of elsewhere) if (!still.has(w.id)) tick();
    elsewhere = await readSideBySide(
      reads,
      elsewhere.filter((w) => still.has(w.id)),
      reads.mark(),
      signal,
      tick,
    );
  }
  return null;
}

/** Reads these invoices' lines, a few side by side: those another process is reading, returned (not read). */
async function readSideBySide(
  reads: LineReads,
  wanted: readonly { id: number; stamp: string }[],
  mark: number,
  signal: AbortSignal,
  tick: () => void,
): Promise<{ id: number; stamp: string }[]> {
  const queue = [...wanted];
  const elsewhere: { id: number; stamp: string }[] = [];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next && !signal.aborted; next = queue.shift()) {
      if (reads.readSince(next.id, mark) || (await reads.read(next, { background: false, signal }))) tick();
      else elsewhere.push(next);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SIDE_BY_SIDE, wanted.length) }, worker));
  return elsewhere;
}
