// The event bus: each event, once, invalidates the cached reads of its records (and so their lists), is
// kept in a short history for the events feed, and then reaches every listener with the URIs it changed.
// Webhook deliveries and the mirror's diffs may both report one change: a change key drops the second
// report when it comes from the other source. Two webhooks with their own ids are two events even when their stamps
// match (the service's stamps are to the second, and stock can drop, rise and drop again within one).
import type { ResourceKind } from '../api/schemas.js';
import { BoundedMemory } from './bounded-memory.js';
import { type BooksEvent, eventUris } from './event.js';

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
  /** Returns false when the event (or the same change) was already published; throws what `invalidate` throws. */
  publish(event: BooksEvent): boolean;
  listen(listener: EventListener): () => void;
  /** The latest events, newest first. */
  recent(): readonly BooksEvent[];
}

/** The same change reported by webhook and by the mirror's diffs has the same key. */
export function changeKey(event: BooksEvent): string {
  const stamp = event.data.updated_at ?? event.data.created_at ?? event.createdAt;
  return `${event.kind}|${event.record.id}|${String(stamp)}`;
}

export function createEventBus(options: EventBusOptions): EventBus {
  const historySize = options.historySize ?? 100;
  // Each key remembers the source that reported it.
  const ids = new BoundedMemory<string, BooksEvent['source']>(options.memory ?? 10_000);
  const changes = new BoundedMemory<string, BooksEvent['source']>(options.memory ?? 10_000);
  const history: BooksEvent[] = [];
  const listeners = new Set<EventListener>();
  return {
    publish(event) {
      const key = changeKey(event);
      const reportedBy = changes.get(key);
      if (ids.has(event.id) || (reportedBy !== undefined && reportedBy !== event.source)) return false;
      // Invalidation first: if it throws, the event is not marked done and a retry can act on it.
      options.invalidate(event.record.kind, event.record.id);
      for (const r of event.related) options.invalidate(r.kind, r.id);
      ids.set(event.id, event.source);
      changes.set(key, event.source);
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
