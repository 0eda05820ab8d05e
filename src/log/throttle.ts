// A log line per kind of trouble per window, not per occurrence: the first occurrence is logged at once,
// the rest in the window are counted and summed up in one line when it ends. Keeps a client that sends
// the same bad input thousands of times from flooding stderr.
import { REAL_TIMERS } from '../core/timers.js';
import type { LogSink } from './deferred-logger.js';

type Level = 'debug' | 'info' | 'warn';

interface Window {
  suppressed: number;
  timer: unknown;
}

export type ThrottledLog = (kind: string, level: Level, fields: Record<string, unknown>, message: string) => void;

export function throttledLog(logger: Pick<LogSink, Level>, windowMs = 60_000): ThrottledLog {
  const windows = new Map<string, Window>();
  const seconds = Math.round(windowMs / 1000);
  return (kind, level, fields, message) => {
    const open = windows.get(kind);
    if (!open) {
      logger[level]({ kind, ...fields }, message);
      const window: Window = { suppressed: 0, timer: null };
      windows.set(kind, window);
      window.timer = REAL_TIMERS.set(
        () => {
          windows.delete(kind);
          if (window.suppressed > 0)
            logger[level](
              { kind, repeated: window.suppressed },
              `${message} (and ${window.suppressed} more like it in the last ${seconds} s)`,
            );
        },
        windowMs,
        true,
      );
      return;
    }
    open.suppressed++;
  };
}
