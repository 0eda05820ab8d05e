// Every wait of the server and the sandbox, on timers a test can inject to move time instead of waiting for it.
// The one module that calls setTimeout (test/unit/one-timers-module.test.ts; the browser page aside).

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

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal, timers: Timers = REAL_TIMERS): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      timers.clear(handle);
      reject(signal?.reason);
    };
    const handle = timers.set(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs `fn` every `ms` until the returned function is called; `idle` as for `Timers.set`. */
export function every(fn: () => void, ms: number, idle = false, timers: Timers = REAL_TIMERS): () => void {
  let stopped = false;
  let handle: unknown;
  const arm = (): void => {
    handle = timers.set(
      () => {
        if (stopped) return;
        arm();
        fn();
      },
      ms,
      idle,
    );
  };
  arm();
  return () => {
    stopped = true;
    timers.clear(handle);
  };
}

/** What `work` settles to, or `late` when it has not settled within `ms` (a rejection is thrown). */
export async function within<T, L>(work: Promise<T>, ms: number, late: L, timers: Timers = REAL_TIMERS): Promise<T | L> {
  let handle: unknown;
  const timeout = new Promise<L>((resolve) => (handle = timers.set(() => resolve(late), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    timers.clear(handle);
  }
}

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
