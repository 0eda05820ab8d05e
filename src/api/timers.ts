// The timers a component waits on, injected so that a test can move time instead of waiting for it.

export interface Timers {
  /** Runs `fn` after `ms`; an `idle` timer does not keep the process alive on its own. */
  set(fn: () => void, ms: number, idle?: boolean): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  set: (fn, ms, idle = false) => {
    const timer = setTimeout(fn, ms);
    if (idle) timer.unref();
    return timer;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
