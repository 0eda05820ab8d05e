// The v2 watcher over stdio (mcp-watchers.ts's modernWatcher, pinned to 2026-07-28) with the client asking
// server/discover of the session's own process, as the SDK does on every other transport, instead of a
// sibling it spawns from the same command and ends at once: one server process instead of two (with
// --webhook-port, the sibling would also try the port), for tests about events rather than that probe.
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioV2InPlace } from './clients.js';
import type { Watcher } from './mcp-watchers.js';
import type { StdioCommand } from './server.js';

export async function modernStdioWatcher(where: { stdio: StdioCommand }): Promise<Watcher> {
  const seen = new Map<string, number[]>();
  const wakers = new Set<() => void>();
  const client = new ModernClient({ name: 'watcher', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    seen.set(n.params.uri, [...(seen.get(n.params.uri) ?? []), Date.now()]);
    for (const wake of wakers) wake();
  });
  await client.connect(new StdioV2InPlace({ ...where.stdio, stderr: 'ignore' }));
  const subscriptions: { close(): Promise<void> }[] = [];
  return {
    era: 'modern',
    protocolVersion: client.getNegotiatedProtocolVersion(),
    subscribable: client.getServerCapabilities()?.resources?.subscribe === true,
    subscribe: async (uris) => void subscriptions.push(await client.listen({ resourceSubscriptions: uris })),
    readJson: async (uri) => JSON.parse((((await client.readResource({ uri })).contents[0] ?? {}) as { text: string }).text),
    updated: (uri, since, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const at = seen.get(uri)?.find((t) => t >= since);
          if (at === undefined) return;
          wakers.delete(check);
          clearTimeout(timer);
          resolve(at);
        };
        const timer = setTimeout(() => {
          wakers.delete(check);
          reject(new Error(`no update of ${uri} within ${timeoutMs} ms (seen: ${JSON.stringify([...seen.keys()])})`));
        }, timeoutMs);
        wakers.add(check);
        check();
      }),
    close: async () => {
      for (const s of subscriptions) await s.close().catch(() => undefined);
      await client.close();
    },
  };
}
