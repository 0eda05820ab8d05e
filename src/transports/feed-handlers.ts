// The SDK's HTTP handler has one listen router, and its notify reaches every subscriptions/listen stream the
// router holds. Where requests read different books (hosted mode: one tenant per business key, each with its
// own event bus), a handler per bus keeps each stream to its own books' changes; the desktop has one bus.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { EventBus } from '../events/bus.js';
import { type NodeMcpBridge, nodeHandler, type StreamRules } from './node-bridge.js';

/** Where a request's events come from: the bus its subscriptions hear, and what starts what feeds it. */
export interface EventFeed {
  bus: EventBus;
  /** Starts what feeds the bus (a tenant's mirror); resolves before a subscription is acknowledged. */
  wanted(): Promise<void>;
}

interface Served {
  handler: McpHttpHandler;
  node: NodeMcpBridge;
  unlisten: () => void;
}

export class FeedHandlers {
  readonly #byBus = new Map<EventBus | null, Served>();

  constructor(
    private readonly make: () => McpHttpHandler,
    private readonly rules: StreamRules,
  ) {}

  /** The handler whose listen streams hear `bus` (none, for null), made on first use. */
  for(bus: EventBus | null): NodeMcpBridge {
    let served = this.#byBus.get(bus);
    if (!served) {
      const handler = this.make();
      const unlisten =
        bus?.listen((_event, uris) => {
          for (const uri of uris) handler.notify.resourceUpdated(uri);
        }) ?? (() => undefined);
      served = { handler, node: nodeHandler(handler, this.rules), unlisten };
      this.#byBus.set(bus, served);
    }
    return served.node;
  }

  /** Ends every open subscriptions/listen stream with a retry hint (the server is stopping). */
  endStreams(): void {
    for (const served of this.#byBus.values()) served.node.endStreams();
  }

  async close(): Promise<void> {
    const all = [...this.#byBus.values()];
    this.#byBus.clear();
    for (const served of all) served.unlisten();
    await Promise.allSettled(all.map((served) => served.handler.close()));
  }
}
