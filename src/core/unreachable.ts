// The database cannot be reached just now: its connection was lost (the server killed, restarted, or the
// backend terminated), refused, or the server is still starting up. Nothing of the request was done that
// its caller was told of, and the same request may succeed in a few seconds: callers answer 503 with
// Retry-After, and a tool says to retry. A query that fails for any other reason is not this.
import { DatabaseError } from './db-error.js';

/** Seconds a client is asked to wait before it tries again. */
export const RETRY_AFTER_SECONDS = 2;

export class DatabaseUnreachable extends DatabaseError {
  /** For an HTTP error handler: the status to answer with. */
  readonly statusCode = 503;
  readonly retryAfter = RETRY_AFTER_SECONDS;

  constructor(message: string, code: string | undefined) {
    super(message, code);
    this.name = 'DatabaseUnreachable';
  }
}

// SQLSTATE: class 08 (connection exception); 57P01-57P03 (terminated by an administrator, a crash or a
// shutdown; cannot connect now: starting up or recovering); 53300 (too many connections).
const UNREACHABLE_CODES = /^(08...|57P0[1-3]|53300)$/;
const UNREACHABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
// What node-postgres itself says of a connection it lost or could not make in time, and Postgres of a database
// closed to connections for a while (ALLOW_CONNECTIONS false: SQLSTATE 55000, too broad a class to match).
const UNREACHABLE_WORDS =
  /connection terminated|not queryable|timeout exceeded when trying to connect|query read timeout|connection error|is not currently accepting connections/i;

/** Whether an error of node-postgres means the database could not be reached (worth a retry). */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof DatabaseUnreachable) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.test(code) || UNREACHABLE_ERRNOS.has(code))) return true;
  return err instanceof Error && UNREACHABLE_WORDS.test(err.message);
}
