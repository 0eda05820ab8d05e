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

/** Waits `ms` on `timers`, or less when `signal` aborts first (then resolves, never rejects). */
export function pause(timers: Timers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      timers.clear(handle);
      resolve();
    };
    const handle = timers.set(
      () => {
        signal.removeEventListener('abort', stop);
        resolve();
      },
      ms,
      true,
    );
    signal.addEventListener('abort', stop, { once: true });
  });
}
