// How much of something each client address holds (open streams, sessions), so that one client with many
// of them cannot take what every other client needs. Behind a proxy the address is the one it forwards when
// --trust-proxy names it (client-address.ts); otherwise every client shares the proxy's address.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stampedClient } from './client-address.js';
import { clientKey } from './client-key.js';
import { SERVER_REFUSAL, sendRpcError } from './json-rpc-errors.js';

/** The client a request came from, as its listener worked it out (client-key.ts; '' when the socket is already gone). */
export const clientOf = (req: IncomingMessage): string => clientKey(stampedClient(req) ?? req.socket.remoteAddress ?? '');

export class PerClient {
  private readonly held = new Map<string, number>();

  constructor(readonly max: number) {}

  count(client: string): number {
    return this.held.get(client) ?? 0;
  }

  /** Takes one for `client`; false when it holds its cap already. */
  take(client: string): boolean {
    const n = this.count(client);
    if (n >= this.max) return false;
    this.held.set(client, n + 1);
    return true;
  }

  give(client: string): void {
    const n = this.count(client) - 1;
    if (n > 0) this.held.set(client, n);
    else this.held.delete(client);
  }
}

/** 429 with Retry-After and a JSON-RPC error: the client holds its share already (`holds` says of what). */
export function refuseOverShare(res: ServerResponse, holds: string, retryAfterMs: number, id: string | number | null = null): void {
  sendRpcError(
    res,
    429,
    SERVER_REFUSAL,
    `This client already holds ${holds}: end some it no longer needs, or try again later.`,
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    id,
  );
}
