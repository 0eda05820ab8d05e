// Stopping without cutting anyone off (SIGTERM behind a load balancer): once draining, every new request
// gets 503 with Retry-After and its connection closed, while the requests already in flight are answered,
// up to a time limit. Long streams are not waited for: their owners end them with a retry hint.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { within } from '../core/timers.js';
import { rpcError, SERVER_REFUSAL } from './json-rpc-errors.js';

/** Seconds a client refused while the server stops is asked to wait before it tries again. */
export const DRAIN_RETRY_AFTER_S = 2;

export class Drain {
  #draining = false;
  readonly #inFlight = new Set<ServerResponse>();
  #idle: (() => void) | null = null;

  get draining(): boolean {
    return this.#draining;
  }

  /** Counts a request as in flight until its answer ends. */
  track(res: ServerResponse): void {
    this.#inFlight.add(res);
    res.once('close', () => {
      this.#inFlight.delete(res);
      if (this.#inFlight.size === 0) this.#idle?.();
    });
  }

  /** No longer waits for a request's answer: it turned out to be a long stream. */
  untrack(res: ServerResponse): void {
    if (this.#inFlight.delete(res) && this.#inFlight.size === 0) this.#idle?.();
  }

  /** The answer to a request that comes while draining: 503, try again. */
  async refuse(reply: FastifyReply): Promise<void> {
    await reply
      .code(503)
      .header('retry-after', String(DRAIN_RETRY_AFTER_S))
      .header('connection', 'close')
      .send(rpcError(SERVER_REFUSAL, 'This server is shutting down: try again, and another instance (or this one restarted) will answer.'));
  }

  /** Starts draining; resolves when nothing is in flight or `timeoutMs` has passed (then false). */
  async drain(timeoutMs: number): Promise<boolean> {
    this.#draining = true;
    if (this.#inFlight.size === 0) return true;
    return within(new Promise<true>((resolve) => (this.#idle = () => resolve(true))), timeoutMs, false);
  }
}
