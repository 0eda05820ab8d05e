// What a failed resource read answers. A record the service does not have is the SDK's
// ResourceNotFoundError: on the wire -32602 with data exactly { uri } on every revision (the 2026-07-28
// specification requires it; the SDK never emits the older -32002, which clients still accept). A
// malformed URI is -32602 with data { uri, reason: 'invalid_uri' }, as the SDK answers a URI it cannot
// parse. Each message says what to fix; any other refusal of the service keeps its own clear message.
// These are ordinary outcomes, so they are logged at debug without a stack.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { ApiError, NotFound } from '../api/errors.js';
import type { LogSink } from '../deferred-logger.js';

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
    if (err instanceof NotFound) throw new ResourceNotFoundError(uri, `${uri} does not exist in these books: list the records to find an id that does.`);
    throw new ProtocolError(ProtocolErrorCode.InternalError, err.message, { uri, code: err.code });
  }
}
