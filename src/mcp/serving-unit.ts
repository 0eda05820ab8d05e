// What one server instance serves: the protocol era, and whether it lives for a connection (stdio, a
// 2025-era HTTP session) or answers a single HTTP request; in hosted mode, who asks (their checked token).
import type { AuthInfo } from '@modelcontextprotocol/server';

export interface ServingUnit {
  era: 'legacy' | 'modern';
  lifetime: 'connection' | 'request';
  /** The JSON-RPC message a single-request instance answers, when known (see request-surface.ts). */
  message?: unknown;
  /** The checked bearer token of a hosted request, and what the resource server found behind it. */
  auth?: AuthInfo | undefined;
}
