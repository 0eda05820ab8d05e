// The one logger: pino writing JSON lines to stderr (fd 2), since stdout is the MCP protocol in stdio
// mode. Credentials are removed at every depth: pino's redact paths for the usual places, a deep scrub of
// every logged object, message and error (keys such as `secret`, `authorization`, and any value shaped like
// a secret, session token, webhook secret or Authorization header).
import { type DestinationStream, type Logger, type LoggerOptions as PinoOptions, pino } from 'pino';
import { logLevelProblem, toLogLevel } from './levels.js';
import { type NoticeBoard, noticeLevel } from './notices.js';
import { REDACTED, redactDeep, redactText } from './redact.js';

export type { Logger };

export interface LoggerOptions {
  /** pino level name; default `info`. */
  level?: string;
  /** Where lines go; default stderr. Tests pass a stream to capture the output. */
  destination?: DestinationStream;
  name?: string;
  /** Where lines marked `notice: true` also go (to reach the MCP clients). */
  notices?: NoticeBoard;
}

const REDACT_KEYS = [
  'secret',
  'token',
  'access_token',
  'accessToken',
  'authorization',
  'Authorization',
  'password',
  'cookie',
  'webhookSecret',
  'webhook_secret',
  'adminToken',
  'admin_token',
];
const REDACT_DEPTH = 5;

export const REDACT_PATHS: string[] = REDACT_KEYS.flatMap((key) =>
  Array.from({ length: REDACT_DEPTH }, (_, depth) => `${'*.'.repeat(depth)}${key}`),
);

/** Errors as plain objects (type, message, stack, own fields, cause), scrubbed. */
export function serializeError(err: unknown): unknown {
  return redactDeep(err);
}

function scrubArgs(args: unknown[]): unknown[] {
  return args.map((arg, i) => {
    if (typeof arg === 'string') return redactText(arg);
    if (i > 0 && arg !== null && typeof arg === 'object' && !(arg instanceof Error)) return redactDeep(arg);
    return arg;
  });
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = toLogLevel(options.level ?? 'info');
  // pino itself would throw only at the first line logged, far from the cause.
  if (level === null) throw new Error(logLevelProblem('the log level', String(options.level)));
  const config: PinoOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: { err: serializeError, error: serializeError },
    formatters: {
      bindings: (bindings) => redactDeep(bindings) as Record<string, unknown>,
      log: (object) => redactDeep(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method, level) {
        // `log.error(err)` would take its message from the error unscrubbed: log it as `{ err }` instead.
        const first: unknown = args[0];
        const shaped =
          first instanceof Error
            ? [{ err: first }, ...(typeof args[1] === 'string' ? args.slice(1) : [first.message, ...args.slice(1)])]
            : args;
        const scrubbed = scrubArgs(shaped);
        if (options.notices && isNotice(scrubbed[0]) && typeof scrubbed[1] === 'string') {
          options.notices.publish({ level: noticeLevel(level), message: scrubbed[1] });
        }
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  if (options.name) config.name = options.name;
  return pino(config, options.destination ?? pino.destination({ dest: 2, sync: true }));
}

function isNotice(first: unknown): boolean {
  return first !== null && typeof first === 'object' && (first as { notice?: unknown }).notice === true;
}

/** A logger that drops everything (the default of library code when none is given). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' }, { write: () => undefined });
}
