// A subscriber of the server's resources, in either protocol era: the v2 client pinned to 2026-07-28
// (subscriptions/listen) or the v1 SDK client on the 2025-11-25 handshake (resources/subscribe), over
// stdio (to the built server inside the worker: stdioHere) or Streamable HTTP. It records when each URI was
// announced updated.
// Over HTTP each watcher has connections of its own, closed with it: none is left kept alive in the process's
// shared pool for a spawned server's SIGTERM to close.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Agent } from 'undici';
import { compiledOnce, compiledOnceV2 } from '../../support/schema-validators.js';
import type { LinkedServer } from './clients.js';

export type Era = 'legacy' | 'modern';
/** Over HTTP, `headers` go with every request (a hosted server's bearer token); `wrap` sees every response. */
export type Where =
  | { linked: LinkedServer }
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

export async function modernWatcher(where: Where): Promise<Watcher> {
  const updates = new Updates();
  const client = new ModernClient(
    { name: 'watcher', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, jsonSchemaValidator: compiledOnceV2 },
  );
  client.setNotificationHandler('notifications/resources/updated', (n) => updates.record(n.params.uri));
  const connections = ownConnections(where);
  const transport =
    'linked' in where
      ? (where.linked.transport as unknown as Parameters<ModernClient['connect']>[0])
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
      if ('linked' in where) await where.linked.close();
    },
  };
}

export async function legacyWatcher(where: Where): Promise<Watcher> {
  const updates = new Updates();
  const client = new LegacyClient({ name: 'watcher', version: '1.0.0' }, { jsonSchemaValidator: compiledOnce });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.record(n.params.uri));
  const connections = ownConnections(where);
  // The SDK opens the session's GET stream, which carries the notifications, in the background after connecting;
  // one sent before it is open has nowhere to go. So the watcher is ready once the stream's answer has come.
  let streamAnswered: () => void = () => undefined;
  const streamOpen = new Promise<void>((resolve) => (streamAnswered = resolve));
  const watched: typeof fetch = async (url, init) => {
    try {
      return await connections.fetch(url, init);
    } finally {
      if ((init?.method ?? 'GET') === 'GET') streamAnswered();
    }
  };
  const transport =
    'linked' in where
      ? (where.linked.transport as unknown as Parameters<LegacyClient['connect']>[0])
      : new LegacyHttp(new URL(where.http), { fetch: watched, requestInit: { headers: where.headers ?? {} } });
  await client.connect(transport);
  if (!('linked' in where)) await streamOpen;
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
      if ('linked' in where) await where.linked.close();
    },
  };
}
