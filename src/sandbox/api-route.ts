// The one wrapper every /api route runs through: injected faults, authentication, the handler, the
// service's headers, and refusals turned into JSON bodies.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sleep } from '../core/timers.js';
import { ApiError } from './api-error.js';
import { authenticate, type Caller, callState } from './call.js';
import type { World } from './world.js';

export interface Answer {
  status: number;
  /** JSON text, or a value to serialise. */
  body: string | Record<string, unknown>;
  headers?: Record<string, string>;
}

export type CallHandler = (request: FastifyRequest, caller: Caller) => Answer;
export type OpenHandler = (request: FastifyRequest) => Answer;

function drop(world: World, request: FastifyRequest, reply: FastifyReply, when: string): void {
  const state = callState(request);
  world.audit.recordRequest({
    at: world.clock.now(),
    method: request.method,
    path: request.url,
    status: 0,
    ms: Math.round(performance.now() - state.startedAt),
    key_id: state.keyId,
    error: `connection dropped ${when} (injected fault)`,
  });
  reply.hijack();
  request.raw.socket.destroy();
}

function send(reply: FastifyReply, answer: Answer): void {
  reply.code(answer.status);
  if (answer.headers) reply.headers(answer.headers);
  reply.type('application/json; charset=utf-8');
  reply.send(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
}

export function errorAnswer(request: FastifyRequest, err: ApiError): Answer {
  callState(request).error = err.message;
  return { status: err.status, body: err.body(), headers: err.headers };
}

async function runGuarded(world: World, request: FastifyRequest, reply: FastifyReply, handle: () => Answer): Promise<void> {
  callState(request);
  const fault = world.faults.draw();
  if (fault === '500') {
    return send(reply, errorAnswer(request, new ApiError(500, 'The service had an internal error. Retry with back-off.')));
  }
  if (fault === 'reset') return drop(world, request, reply, 'before handling');
  if (fault === 'latency') await sleep(world.faults.settings.latency_ms);
  let answer: Answer;
  try {
    answer = handle();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    answer = errorAnswer(request, err);
  }
  if (fault === 'reset_after') return drop(world, request, reply, 'after handling');
  send(reply, answer);
}

/** A route that needs a session (and `scope`, when not null). */
export function sessionRoute(world: World, scope: string | null, handler: CallHandler) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    runGuarded(world, request, reply, () => handler(request, authenticate(world, request, scope)));
}

/** A route that needs no session (sign-in). */
export function openRoute(world: World, handler: OpenHandler) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> => runGuarded(world, request, reply, () => handler(request));
}
