// Records past their expiry (codes, tokens, sessions, grants, clients never used) are forgotten by a sweep:
// at start and every five minutes, in batches of 500 up to 20 a run, so one run's work is bounded however
// much expired at once; what is left waits for the next run. A sweep that fails (the database away) is
// tried again at the next run; records past their expiry are never found meanwhile.
import type { Timers } from '../../core/timers.js';
import type { Logger } from '../../log/logger.js';
import type { PgDb } from '../../store/postgres/db.js';
import { sweepExpired } from './adapter.js';

export const SWEEP = { everyMs: 5 * 60_000, batch: 500, batchesPerRun: 20 } as const;

export interface Sweeping {
  stop(): void;
}

/** Sweeps `db` now and then every five minutes, until stopped. */
export function sweepEvery(db: PgDb, deps: { now: () => number; timers: Timers; logger: Logger }): Sweeping {
  let timer: unknown = null;
  let stopped = false;
  const run = async (): Promise<void> => {
    try {
      for (let i = 0; i < SWEEP.batchesPerRun; i++) {
        if ((await sweepExpired(db, deps.now(), SWEEP.batch)) < SWEEP.batch) break;
      }
    } catch (err) {
      if (!stopped)
        deps.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'the sweep of expired OAuth records failed: tried again at the next',
        );
    }
    if (!stopped) timer = deps.timers.set(() => void run(), SWEEP.everyMs, true);
  };
  void run();
  return {
    stop() {
      stopped = true;
      if (timer !== null) deps.timers.clear(timer);
    },
  };
}
