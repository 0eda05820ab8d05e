// Refusals of the service as the MCP layer reports them. A resource read of a record the service does not
// have is the SDK's ResourceNotFoundError: on the wire -32602 with data exactly { uri } (the 2026-07-28
// specification requires it), renamed -32002 for 2025-era connections by legacy-error-codes.ts. A malformed URI is -32602 with data { uri, reason: 'invalid_uri' }, as the SDK answers a URI it
// cannot parse. Each message says what to fix; any other refusal keeps the service's own message. Refusals
// are ordinary outcomes: logged below warn and without a stack.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { ApiError, NotFound } from '../api/errors.js';
import type { LogSink } from '../log/deferred-logger.js';

/** The id of `invoicing://{kind}/{id}` is not a record id. */
export function malformedResourceUri(uri: string, problem: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri}: ${problem}`, { uri, reason: 'invalid_uri' });
}

/** Runs a read, turning the service's refusals into the protocol's errors. */
export async function readingResource<T>(uri: string, logger: Pick<LogSink, 'debug'>, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    if (!(err instanceof ApiError)) throw err;
    logger.debug({ uri, status: err.status, code: err.code }, 'resource read refused');
    if (err instanceof NotFound)
      throw new ResourceNotFoundError(uri, `${uri} does not exist in these books: list the records to find an id that does.`);
    throw new ProtocolError(ProtocolErrorCode.InternalError, err.message, { uri, code: err.code });
  }
}

/**
 * Logs a failed tool call: a refusal the service answered (4xx) is an ordinary outcome, logged at info
 * with its status and code and no stack; anything else (a fault, no answer, a bug) at warn with the error.
 */
export function logToolFailure(logger: Pick<LogSink, 'info' | 'warn'>, tool: string, err: unknown): void {
  if (err instanceof ApiError && err.status !== null && err.status < 500) {
    logger.info({ tool, status: err.status, code: err.code }, 'tool call refused by the service');
  } else {
    logger.warn({ tool, err }, 'tool call failed');
  }
}
