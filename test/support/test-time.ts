// Time a test moves instead of waiting for it, handed to our code as its clock and timers. `manualTime` moves
// only when the test says (a unit with no service behind it). `steppingTime` runs with real time, and each
// sleep moves it on at once (one caller waiting at a time, on waits the service does not see: back-off).
// `skippingTime` runs with real time but skips the
// stretches where nothing is under way: when every timer left is due later and `busy()` says no call is in
// flight, it moves the sandbox's clock on to the next timer, then ours by the same step, and fires it. So the
// service and our code keep one time, and a wait of seconds for a rate window costs a call to the admin clock.
import { sleep, type Timers } from '../../src/core/timers.js';
import type { TestSandbox } from './sandbox.js';

interface Due {
  at: number;
  fn: () => void;
}

export interface TestTime {
  now(): number;
  timers: Timers;
  /** The budget's and the client's `sleep`: resolves when the time has come, rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Timers due at moments of `now()`, earliest first (in the order set, at one moment). */
class DueTimers {
  readonly #due = new Set<Due>();

  add(at: number, fn: () => void): Due {
    const entry = { at, fn };
    this.#due.add(entry);
    return entry;
  }

  remove(handle: unknown): void {
    this.#due.delete(handle as Due);
  }

  earliest(): Due | undefined {
    let first: Due | undefined;
    for (const d of this.#due) if (!first || d.at < first.at) first = d;
    return first;
  }

  /** Removes and runs the earliest timer. */
  fire(entry: Due): void {
    this.#due.delete(entry);
    entry.fn();
  }
}

/** A clock that stands still until `advance`, which fires the timers due on the way, in order. */
export function manualTime(start = 1_000_000): TestTime & { advance(ms: number): void } {
  let now = start;
  const due = new DueTimers();
  const timers: Timers = { set: (fn, ms) => due.add(now + Math.max(0, ms), fn), clear: (handle) => due.remove(handle) };
  return {
    now: () => now,
    timers,
    sleep: (ms, signal) => sleep(ms, signal, timers),
    advance(ms) {
      const until = now + ms;
      for (let next = due.earliest(); next && next.at <= until; next = due.earliest()) {
        now = next.at;
        due.fire(next);
      }
      now = until;
    },
  };
}

/** Real time plus the sleeps so far: a sleep moves the clock on by its length, at once. */
export function steppingTime(): Pick<TestTime, 'now' | 'sleep'> & { slept(): number } {
  let slept = 0;
  return {
    now: () => Date.now() + slept,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      slept += Math.max(0, ms);
      return Promise.resolve();
    },
    slept: () => slept,
  };
}

/** Real time with the idle stretches skipped, on `sb`'s clock and ours (see the top of the file). */
export async function skippingTime(sb: TestSandbox, busy: () => boolean): Promise<TestTime & { stop(): void }> {
  // The sandbox's clock may already differ from the real one (a pinned day, an earlier move): start from it.
  let offset = Date.parse((await sb.clock()).now) - Date.now();
  const due = new DueTimers();
  let driving = false;
  let stopped = false;
  const now = (): number => Date.now() + offset;
  const aMoment = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

  async function drive(): Promise<void> {
    if (driving) return;
    driving = true;
    try {
      // Each look comes a moment after the last: what set a timer or fired one starts its calls meanwhile (and
      // so counts as busy), or a call in flight ends.
      for (await aMoment(); !stopped; await aMoment()) {
        const next = due.earliest();
        if (!next) return;
        const wait = next.at - now();
        if (wait <= 0) due.fire(next);
        else if (!busy()) {
          await sb.advanceClock(wait / 1000);
          offset += wait;
        }
      }
    } catch {
      stopped = true; // the sandbox has closed
    } finally {
      driving = false;
    }
  }

  const timers: Timers = {
    set(fn, ms) {
      const entry = due.add(now() + Math.max(0, ms), fn);
      void drive();
      return entry;
    },
    clear: (handle) => due.remove(handle),
  };
  return {
    now,
    timers,
    sleep: (ms, signal) => sleep(ms, signal, timers),
    stop() {
      stopped = true;
    },
  };
}
