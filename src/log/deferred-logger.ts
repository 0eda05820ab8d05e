// A logger that loads pino only when something is first logged (pino and its redaction cost a starting
// server about as much as the rest of its start-up). Calls made before it is ready are kept in order.
import type { Logger, LoggerOptions } from './logger.js';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface LogSink {
  trace(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  fatal(obj: object, msg?: string): void;
}

export interface DeferredLogger {
  sink: LogSink;
  /** The real logger, loading it if needed. */
  load(): Promise<Logger>;
}

export function deferredLogger(options: LoggerOptions = {}): DeferredLogger {
  let loading: Promise<Logger> | null = null;
  let ready: Logger | null = null;
  const load = (): Promise<Logger> => (loading ??= import('./logger.js').then(({ createLogger }) => (ready = createLogger(options))));
  const at =
    (level: Level) =>
    (obj: object, msg?: string): void => {
      if (ready) ready[level](obj, msg);
      else void load().then((logger) => logger[level](obj, msg));
    };
  return {
    sink: { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') },
    load,
  };
}
