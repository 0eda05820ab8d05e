// An event, as data: what the service's webhooks carry and what the mirror works out from its diffs, in one
// shape. `uris` are the MCP resources whose content it changes; the bus notifies their subscribers.
import type { ResourceKind } from '../api/schemas.js';

export const EVENT_KINDS = ['invoice.sent', 'invoice.paid', 'payment.recorded', 'quote.accepted', 'stock.low'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const EVENTS_FEED_URI = 'invoicing://events';
export const LOW_STOCK_FEED_URI = 'invoicing://products/low-stock';

export interface BooksEvent {
  /** The service's `evt_…` id for a webhook; `poll_…` for an event the mirror worked out from a diff. */
  id: string;
  kind: EventKind;
  /** As the service wrote it (webhook `created_at`), or when the mirror saw the change. */
  createdAt: string;
  source: 'webhook' | 'poll';
  /** The record the event is about. */
  record: { kind: ResourceKind; id: number };
  /** Other records it changes: a payment's allocated invoices. */
  related: { kind: ResourceKind; id: number }[];
  /** The record as the event carried it (`data.invoice`, `data.payment`, ...). */
  data: Record<string, unknown>;
}

const NOUN_KIND: Record<string, ResourceKind> = {
  invoice: 'invoices',
  payment: 'payments',
  quote: 'quotes',
  product: 'products',
};

export const recordUri = (kind: ResourceKind, id: number): string => `invoicing://${kind}/${id}`;

/** The invoices a payment is allocated to, each once, as an event's related records. */
export function relatedInvoices(invoiceIds: readonly number[]): BooksEvent['related'] {
  return [...new Set(invoiceIds)].map((id) => ({ kind: 'invoices' as const, id }));
}

/** Every resource whose content the event changes: its records, the events feed, the low-stock feed. */
export function eventUris(event: BooksEvent): string[] {
  const uris = [recordUri(event.record.kind, event.record.id)];
  for (const r of event.related) uris.push(recordUri(r.kind, r.id));
  if (event.record.kind === 'products') uris.push(LOW_STOCK_FEED_URI);
  uris.push(EVENTS_FEED_URI);
  return [...new Set(uris)];
}

/** The noun under which a webhook's `data` carries the record (`stock.low` -> product). */
export const EVENT_NOUN: Record<EventKind, string> = {
  'invoice.sent': 'invoice',
  'invoice.paid': 'invoice',
  'payment.recorded': 'payment',
  'quote.accepted': 'quote',
  'stock.low': 'product',
};

/** The kind of record an event of `kind` is about (`invoice.paid` -> invoices, `stock.low` -> products). */
export function recordKindOf(kind: EventKind): ResourceKind {
  return NOUN_KIND[EVENT_NOUN[kind]] as ResourceKind;
}
