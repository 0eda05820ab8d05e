// The event bus: each event, once, invalidates the cached reads of its records (and so their lists), is
// kept in a short history for the events feed, and then reaches every listener with the URIs it changed.
// Webhook deliveries and the poller may both report one change: a change key drops the second report.
import type { ResourceKind } from '../api/schemas.js';
import { eventUris, type BooksEvent } from './event.js';

export type EventListener = (event: BooksEvent, uris: readonly string[]) => void;

export interface EventBusOptions {
  /** Drops cached reads of a record and of its kind's lists (the client's `invalidate`). */
  invalidate: (kind: ResourceKind, id: number) => void;
  /** How many events the feed keeps. */
  historySize?: number;
  /** How many event ids and change keys are remembered to drop repeats. */
  memory?: number;
  onListenerError?: (err: unknown) => void;
}

export interface EventBus {
  /** Returns false when the event (or the same change) was already published. */
  publish(event: BooksEvent): boolean;
  listen(listener: EventListener): () => void;
  /** The latest events, newest first. */
  recent(): readonly BooksEvent[];
}

/** The same change reported twice (webhook and poller) has the same key. */
export function changeKey(event: BooksEvent): string {
  const stamp = event.data['updated_at'] ?? event.data['created_at'] ?? event.createdAt;
  return `${event.kind}|${event.record.id}|${String(stamp)}`;
}

class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly size: number) {}
  has(key: string): boolean {
    return this.items.has(key);
  }
  add(key: string): void {
    this.items.add(key);
    if (this.items.size > this.size) this.items.delete(this.items.values().next().value as string);
  }
}

export function createEventBus(options: EventBusOptions): EventBus {
  const historySize = options.historySize ?? 100;
  const seen = new BoundedSet(options.memory ?? 10_000);
  const history: BooksEvent[] = [];
  const listeners = new Set<EventListener>();
  return {
    publish(event) {
      const key = changeKey(event);
      if (seen.has(event.id) || seen.has(key)) return false;
      seen.add(event.id);
      seen.add(key);
      options.invalidate(event.record.kind, event.record.id);
      for (const r of event.related) options.invalidate(r.kind, r.id);
      history.unshift(event);
      if (history.length > historySize) history.pop();
      const uris = eventUris(event);
      for (const listener of listeners) {
        try {
          listener(event, uris);
        } catch (err) {
          options.onListenerError?.(err);
        }
      }
      return true;
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    recent: () => history,
  };
}
