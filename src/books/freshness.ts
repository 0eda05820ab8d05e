// The answer to ensureFresh: the as-of time of the kinds asked for (the oldest of their last reads, in the
// service's clock) and the business's today then.
import { sleep } from '../core/timers.js';
import type { KindMark, MirrorStore } from '../store/store.js';
import type { Freshness, FreshProgress, MirroredKind } from '../store/types.js';

const WAIT_FOR_HOLDER_MS = 120_000;
const LOOK_EVERY_MS = 250;

/** Progress over several kinds' first reads, as one count. */
export function progressTally(onProgress: ((u: FreshProgress) => void) | undefined) {
  const seen = new Map<MirroredKind, { progress: number; total?: number | undefined }>();
  return (kind: MirroredKind) =>
    onProgress &&
    ((u: FreshProgress): void => {
      seen.set(kind, { progress: u.progress, total: u.total });
      const all = [...seen.values()];
      const total = all.every((s) => s.total !== undefined) ? all.reduce((n, s) => n + (s.total ?? 0), 0) : undefined;
      onProgress({ progress: all.reduce((n, s) => n + s.progress, 0), ...(total !== undefined ? { total } : {}), message: u.message });
    });
}

const HOLDER_ANSWERS_WITHIN_MS = 15_000;

/** Waits until the lease holder has read these kinds since `asked` (or gives up, leaving them as they are). */
export async function holderCaughtUp(
  store: MirrorStore,
  kinds: readonly MirroredKind[],
  asked: number,
  now: () => number,
  signal?: AbortSignal,
  lookEveryMs = LOOK_EVERY_MS,
): Promise<void> {
  const until = now() + HOLDER_ANSWERS_WITHIN_MS;
  while (now() < until) {
    const marks = await store.marks();
    if (kinds.every((k) => (marks.get(k)?.syncedMs ?? -Infinity) >= asked)) return;
    signal?.throwIfAborted();
    await sleep(lookEveryMs);
  }
}

export async function freshness(
  store: MirrorStore,
  kinds: readonly MirroredKind[],
  options: {
    signal?: AbortSignal;
    onProgress?: ((u: FreshProgress) => void) | undefined;
    lookEveryMs?: number | undefined;
    /** The marks the caller has just read, when it read no kind since: not read again. */
    marks?: Map<MirroredKind, KindMark> | undefined;
  },
): Promise<Freshness> {
  // Another process holds the sync lease and has not finished the first read of a kind yet: wait for it.
  const until = Date.now() + WAIT_FOR_HOLDER_MS;
  let marks = options.marks ?? (await store.marks());
  while (kinds.some((k) => !marks.has(k))) {
    options.signal?.throwIfAborted();
    if (Date.now() > until)
      throw new Error(
        `the mirror has not finished its first read of ${kinds.filter((k) => !marks.has(k)).join(', ')}: try again in a minute`,
      );
    const counts = await store.counts();
    options.onProgress?.({ progress: kinds.reduce((n, k) => n + counts[k], 0), message: 'another server process is reading the books' });
    await sleep(options.lookEveryMs ?? LOOK_EVERY_MS);
    marks = await store.marks();
  }
  let oldest: string | null = null;
  for (const kind of kinds) {
    const at = marks.get(kind)?.syncedAt as string;
    if (oldest === null || Date.parse(at) < Date.parse(oldest)) oldest = at;
  }
  const asOf = oldest ?? new Date().toISOString();
  return { asOf, today: asOf.slice(0, 10) };
}
