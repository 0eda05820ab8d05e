// A subscriber of the server's resources, in either protocol era: the v2 client pinned to 2026-07-28
// (subscriptions/listen) or the v1 SDK client on the 2025-11-25 handshake (resources/subscribe), over
// stdio (spawning the built server) or Streamable HTTP. It records when each URI was announced updated.
// Over HTTP each watcher has connections of its own, closed with it: a kept-alive one left in the process's
// shared pool would hold the server's SIGTERM up for seconds (it waits for its connections to end).
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Agent } from 'undici';
import { compiledOnce, compiledOnceV2 } from '../../support/schema-validators.js';
import { StdioV2InPlace } from './clients.js';
import type { StdioCommand } from './server.js';

export type Era = 'legacy' | 'modern';
/** Over HTTP, `headers` go with every request (a hosted server's bearer token); `wrap` sees every response. */
export type Where =
  | { stdio: StdioCommand }
  | { http: string; headers?: Record<string, string>; wrap?: (inner: typeof fetch) => typeof fetch };

export interface Watcher {
  era: Era;
  /** As negotiated (the v1 client exposes it over HTTP only). */
  protocolVersion: string | undefined;
  /** Whether the server advertised resources.subscribe. */
  subscribable: boolean;
  subscribe(uris: string[]): Promise<void>;
  readJson(uri: string): Promise<any>;
  /** Resolves with the time (ms) of the first update of `uri` after `since`, or rejects after `timeoutMs`. */
  updated(uri: string, since: number, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

class Updates {
  private readonly seen = new Map<string, number[]>();
  private readonly waiters = new Set<() => void>();
  record(uri: string): void {
    this.seen.set(uri, [...(this.seen.get(uri) ?? []), Date.now()]);
    for (const wake of this.waiters) wake();
  }
  first(uri: string, since: number): number | undefined {
    return this.seen.get(uri)?.find((t) => t >= since);
  }
  wait(uri: string, since: number, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const at = this.first(uri, since);
        if (at === undefined) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(at);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no update of ${uri} within ${timeoutMs} ms (seen: ${JSON.stringify([...this.seen.keys()])})`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}

const text = (result: { contents: unknown[] }): string => (result.contents[0] as { text: string }).text;

/** A fetch on connections of its own (wrapped as `where` asks), and the closing of them. */
function ownConnections(where: Where): { fetch: typeof fetch; close(): Promise<void> } {
  const agent = new Agent();
  const own: typeof fetch = (url, init) => fetch(url, { ...init, dispatcher: agent } as RequestInit);
  return {
    fetch: 'http' in where && where.wrap ? where.wrap(own) : own,
    close: () => agent.close(),
  };
}

/**
 * `probe: 'in-place'` (over stdio): the client asks server/discover of the session's own process, as the SDK
 * does on every other transport, instead of a sibling it spawns from the same command: one server process
 * instead of two (with --webhook-port, the sibling would also try the port), for tests about events.
 */
export async function modernWatcher(where: Where, options: { probe?: 'sibling' | 'in-place' } = {}): Promise<Watcher> {
  const updates = new Updates();
  const client = new ModernClient(
    { name: 'watcher', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, jsonSchemaValidator: compiledOnceV2 },
  );
  client.setNotificationHandler('notifications/resources/updated', (n) => updates.record(n.params.uri));
  const connections = ownConnections(where);
  const transport =
    'stdio' in where
      ? new (options.probe === 'in-place' ? StdioV2InPlace : ModernStdio)({ ...where.stdio, stderr: 'ignore' })
      : new ModernHttp(new URL(where.http), { fetch: connections.fetch, requestInit: { headers: where.headers ?? {} } });
  await client.connect(transport);
  const subscriptions: { close(): Promise<void> }[] = [];
  return {
    era: 'modern',
    protocolVersion: client.getNegotiatedProtocolVersion(),
    subscribable: client.getServerCapabilities()?.resources?.subscribe === true,
    subscribe: async (uris) => void subscriptions.push(await client.listen({ resourceSubscriptions: uris })),
    readJson: async (uri) => JSON.parse(text(await client.readResource({ uri }))),
    updated: (uri, since, timeoutMs) => updates.wait(uri, since, timeoutMs),
    close: async () => {
      for (const s of subscriptions) await s.close().catch(() => undefined);
      await client.close();
      await connections.close();
    },
  };
}

export async function legacyWatcher(where: Where): Promise<Watcher> {
  const updates = new Updates();
  const client = new LegacyClient({ name: 'watcher', version: '1.0.0' }, { jsonSchemaValidator: compiledOnce });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.record(n.params.uri));
  const connections = ownConnections(where);
  const transport =
    'stdio' in where
      ? new LegacyStdio({ ...where.stdio, stderr: 'ignore' })
      : new LegacyHttp(new URL(where.http), { fetch: connections.fetch, requestInit: { headers: where.headers ?? {} } });
  await client.connect(transport);
  return {
    era: 'legacy',
    protocolVersion: transport instanceof LegacyHttp ? transport.protocolVersion : undefined,
    subscribable: client.getServerCapabilities()?.resources?.subscribe === true,
    subscribe: async (uris) => {
      for (const uri of uris) await client.subscribeResource({ uri });
    },
    readJson: async (uri) => JSON.parse(text((await client.readResource({ uri })) as { contents: unknown[] })),
    updated: (uri, since, timeoutMs) => updates.wait(uri, since, timeoutMs),
    close: async () => {
      await client.close();
      await connections.close();
    },
  };
}

/** The v2 watcher over stdio, probing in place (see modernWatcher). */
export const modernStdioWatcher = (where: { stdio: StdioCommand }): Promise<Watcher> => modernWatcher(where, { probe: 'in-place' });
