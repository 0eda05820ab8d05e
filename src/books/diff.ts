// Events from the mirror's diffs: the stored record against the incoming one. A state (sent, paid, accepted,
// low) is news when it is reached; a payment when it is new. A record the mirror has never held is news only
// when the service changed it after the baseline (`newSince`: when the service first answered this process,
// so never newer than what a client was shown): the first full read learns the older books silently, but
// announces what changed since. Exact across restarts, since the stored record is the memory.
import { createHash } from 'node:crypto';
import { Decimal } from '../core/decimal.js';
import { type BooksEvent, type EventKind, relatedInvoices } from '../events/event.js';
import { type Rec, stampOf } from '../store/record.js';
import type { MirroredKind } from '../store/types.js';

/** Whether a tracked product is at or below its reorder level (the numbers, else `stock.low`). */
export function isLow(product: Record<string, unknown>): boolean {
  if (product.track_stock !== true) return false;
  const stock = product.stock as Record<string, unknown> | null | undefined;
  if (!stock) return false;
  const onHand = Decimal.read(stock.on_hand);
  const reorderLevel = Decimal.read(stock.reorder_level);
  return onHand && reorderLevel ? !onHand.gt(reorderLevel) : stock.low === true;
}

const STATUS_EVENTS: Partial<Record<MirroredKind, Record<string, EventKind>>> = {
  invoices: { sent: 'invoice.sent', paid: 'invoice.paid' },
  quotes: { accepted: 'quote.accepted' },
};

/** What a record's state says, with nothing to compare it to. */
function stateEvents(kind: MirroredKind, record: Rec): EventKind[] {
  if (kind === 'payments') return ['payment.recorded'];
  if (kind === 'products') return isLow(record) ? ['stock.low'] : [];
  const hit = STATUS_EVENTS[kind]?.[String(record.status ?? '')];
  return hit ? [hit] : [];
}

function changeEvents(kind: MirroredKind, before: Rec, after: Rec): EventKind[] {
  if (kind === 'products') return isLow(after) && !isLow(before) ? ['stock.low'] : [];
  if (kind === 'payments' || before.status === after.status) return [];
  const hit = STATUS_EVENTS[kind]?.[String(after.status ?? '')];
  return hit ? [hit] : [];
}

export interface DiffContext {
  /** Records never held are news only when stamped at or after this (service clock, ms; -Infinity = always). */
  newSince: number;
  now: () => number;
}

export function diffEvents(kind: MirroredKind, before: Rec | undefined, after: Rec, context: DiffContext): BooksEvent[] {
  let kinds: EventKind[];
  if (before) kinds = changeEvents(kind, before, after);
  else {
    const stamp = Date.parse(stampOf(after) ?? '');
    kinds = context.newSince === -Infinity || (Number.isFinite(stamp) && stamp >= context.newSince) ? stateEvents(kind, after) : [];
  }
  return kinds.map((k) => eventOf(k, kind, after, context.now()));
}

function eventOf(kind: EventKind, recordKind: MirroredKind, record: Rec, now: number): BooksEvent {
  const stamp = stampOf(record) ?? '';
  // The same change read twice (an overlap, a second process) has the same id.
  const digest = createHash('sha256').update(`${kind}|${record.id}|${stamp}`).digest('hex').slice(0, 24);
  const allocations = Array.isArray(record.allocations) ? (record.allocations as Record<string, unknown>[]) : [];
  return {
    id: `poll_${digest}`,
    kind,
    createdAt: new Date(now).toISOString(),
    source: 'poll',
    record: { kind: recordKind, id: record.id },
    related:
      kind === 'payment.recorded'
        ? relatedInvoices(allocations.map((a) => a.invoice_id).filter((id): id is number => typeof id === 'number'))
        : [],
    data: record,
  };
}
