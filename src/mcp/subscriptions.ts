// Resource subscriptions on one server instance. 2025-era connections say which URIs they watch with
// resources/subscribe, and get notifications/resources/updated for those only; on 2026-07-28 connections
// the entry (serveStdio) routes every update onto the subscriptions/listen streams whose filter names it.
// An instance that serves a single HTTP request delivers nothing itself: the HTTP entry publishes on its
// own notifier (see http.ts).
import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { EventBus } from '../events/bus.js';
import { EVENTS_FEED_URI, LOW_STOCK_FEED_URI } from '../events/event.js';
import type { ServingUnit } from './serving-unit.js';

const RECORD_URI = /^invoicing:\/\/(customers|invoices|quotes|payments|products)\/[1-9]\d{0,15}$/;

/** Whether `uri` names something that can change: a record or a feed. */
export function isSubscribable(uri: string): boolean {
  return uri === EVENTS_FEED_URI || uri === LOW_STOCK_FEED_URI || RECORD_URI.test(uri);
}

function checked(uri: string): string {
  if (isSubscribable(uri)) return uri;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Cannot subscribe to ${uri.slice(0, 200)}: subscribe to a record (invoicing://invoices/42, ...), ${EVENTS_FEED_URI} or ${LOW_STOCK_FEED_URI}.`,
  );
}

// An instance built for a probe that never connects must not stay on the bus forever.
const UNCONNECTED_GRACE_MS = 30_000;

/** `wanted` starts what feeds the bus; a subscription is answered once it has. */
export function serveSubscriptions(server: McpServer, bus: EventBus, unit: ServingUnit, wanted?: () => Promise<void>): void {
  const watched = new Set<string>();
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    watched.add(checked(request.params.uri));
    await wanted?.();
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    watched.delete(request.params.uri);
    return {};
  });
  if (unit.lifetime === 'request') return;

  const createdAt = Date.now();
  const unlisten = bus.listen((_event, uris) => {
    if (!server.isConnected()) {
      if (Date.now() - createdAt > UNCONNECTED_GRACE_MS) unlisten();
      return;
    }
    for (const uri of uris) {
      if (unit.era === 'modern' || watched.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    unlisten();
    previous?.();
  };
}
