// Resource subscriptions on one server instance. 2025-era connections say which URIs they watch with
// resources/subscribe, and get notifications/resources/updated for those only; on 2026-07-28 connections
// the entry (serveStdio) routes every update onto the subscriptions/listen streams whose filter names it.
// An instance that serves a single HTTP request delivers nothing itself: the HTTP entry publishes on its
// own notifier (see http.ts).
import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { EVENTS_FEED_URI, LOW_STOCK_FEED_URI } from '../events/event.js';
import { type Businesses, type BusinessUnit, uriIn } from './businesses.js';
import type { ServingUnit } from './serving-unit.js';

const RECORD_URI = /^invoicing:\/\/(customers|invoices|quotes|payments|products)\/[1-9]\d{0,15}$/;

/** Whether `uri` names something that can change: a record or a feed (of one business, as `uriIn` writes it). */
function isSubscribable(uri: string): boolean {
  return uri === EVENTS_FEED_URI || uri === LOW_STOCK_FEED_URI || RECORD_URI.test(uri);
}

/** The business whose books `uri` names, when it names something that can change; else refused, saying what can. */
function businessOf(businesses: Businesses, uri: string): BusinessUnit {
  for (const unit of businesses.units) {
    const own = uriIn(unit, 'invoicing://');
    if (uri.startsWith(own) && isSubscribable(`invoicing://${uri.slice(own.length)}`)) return unit;
  }
  const [first] = businesses.units;
  const example = (path: string) => (first ? uriIn(first, path) : path);
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Cannot subscribe to ${uri.slice(0, 200)}: subscribe to a record (${example('invoicing://invoices/42')}, ...), ${example(EVENTS_FEED_URI)} or ${example(LOW_STOCK_FEED_URI)}.`,
  );
}

// An instance built for a probe that never connects must not stay on the bus forever.
const UNCONNECTED_GRACE_MS = 30_000;

/**
 * Each business's bus reaches its own URIs only; a subscription is answered once what feeds that business's
 * bus (`events.wanted`) has started.
 */
export function serveSubscriptions(server: McpServer, businesses: Businesses, unit: ServingUnit): void {
  const watched = new Set<string>();
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    const business = businessOf(businesses, request.params.uri);
    watched.add(request.params.uri);
    await business.events.wanted?.();
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    watched.delete(request.params.uri);
    return {};
  });
  if (unit.lifetime === 'request') return;

  const createdAt = Date.now();
  const unlistens = businesses.units.map((business) =>
    business.events.bus.listen((_event, uris) => {
      if (!server.isConnected()) {
        if (Date.now() - createdAt > UNCONNECTED_GRACE_MS) unlisten();
        return;
      }
      for (const own of uris) {
        const uri = uriIn(business, own);
        if (unit.era === 'modern' || watched.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
      }
    }),
  );
  const unlisten = (): void => {
    for (const off of unlistens) off();
  };
  const previous = server.server.onclose;
  server.server.onclose = () => {
    unlisten();
    previous?.();
  };
}
