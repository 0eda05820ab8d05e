// HTTP refusals at the MCP endpoint as the MCP spec shapes them: an HTTP status with a JSON-RPC error that
// has no id. Also what fastify refuses before a route runs (a body that is not JSON, too deep, too large,
// of another media type), so a client sees JSON-RPC's -32700 or -32600 rather than fastify's own error body.
import type { ServerResponse } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** The code the SDK's transports give every HTTP-level refusal that JSON-RPC has no code for. */
export const SERVER_REFUSAL = -32000;

type Id = string | number | null;

export const rpcError = (code: number, message: string, id: Id = null) => ({ jsonrpc: '2.0' as const, error: { code, message }, id });

/** Answers `res` with `status` and a JSON-RPC error (of the request `id`, when it is known). */
export function sendRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: Id = null,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(rpcError(code, message, id)));
}

/** What a refusal of fastify's (or of our JSON parser) is as JSON-RPC: the status kept, a code and words. */
export function refusalOf(err: FastifyError & { code?: unknown }): { status: number; code: number; message: string } {
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500;
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return { status: 415, code: SERVER_REFUSAL, message: 'Unsupported Media Type: Content-Type must be application/json' };
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, code: INVALID_REQUEST, message: 'Invalid request: body too large' };
  if (typeof err.code === 'number') return { status, code: err.code, message: err.message };
  if (status === 400) return { status, code: PARSE_ERROR, message: 'Parse error: the body is not valid JSON' };
  return status >= 500 ? { status, code: -32603, message: 'Internal error' } : { status, code: SERVER_REFUSAL, message: err.message };
}

/** A fastify error handler that answers every refusal as a JSON-RPC error. */
export function rpcErrorHandler(report: (err: Error) => void) {
  return (err: FastifyError, _request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const refusal = refusalOf(err);
    // A wait the error names (a database briefly unreachable): 503 with Retry-After, not reported as a fault.
    const retryAfter = (err as { retryAfter?: unknown }).retryAfter;
    if (refusal.status === 503 && typeof retryAfter === 'number') {
      const message = `Service briefly unavailable: retry in ${retryAfter} s`;
      return reply.code(503).header('retry-after', String(retryAfter)).type('application/json').send(rpcError(SERVER_REFUSAL, message));
    }
    if (refusal.status >= 500) report(err);
    return reply.code(refusal.status).type('application/json').send(rpcError(refusal.code, refusal.message));
  };
}
