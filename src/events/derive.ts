// The poller's pure part: from records a list returned as changed, the events the webhooks would have
// carried. Remembers each record's last state, so a state (sent, paid, accepted, low) is reported when it
// is reached and a record read again (the overlap, a later edit) is not news; a payment is recorded once.
// Not by stamp: the service's stamps are whole seconds, so a draft read and then sent within one second
// carries the same stamp in both states.
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { ResourceKind } from '../api/schemas.js';
import { BoundedMemory } from './bounded-memory.js';
import { relatedInvoices, type BooksEvent, type EventKind } from './event.js';

export type PolledKind = 'invoices' | 'payments' | 'quotes' | 'products';
export const POLLED_KINDS: readonly PolledKind[] = ['invoices', 'payments', 'quotes', 'products'];

type Rec = Record<string, unknown> & { id: number };

/** When a record last changed, as the service wrote it: `updated_at`, else `created_at`. */
export function stampOf(record: Record<string, unknown>): string | null {
  const s = record['updated_at'] ?? record['created_at'];
  return typeof s === 'string' ? s : null;
}

/** Whether a tracked product is at or below its reorder level (`stock.low`, else the numbers). */
export function isLow(product: Record<string, unknown>): boolean {
  if (product['track_stock'] !== true) return false;
  const stock = product['stock'] as Record<string, unknown> | null | undefined;
  if (!stock) return false;
  try {
    return new Decimal(String(stock['on_hand'])).lte(new Decimal(String(stock['reorder_level'])));
  } catch {
    return stock['low'] === true;
  }
}

const STATUS_EVENTS: Partial<Record<PolledKind, [string, EventKind][]>> = {
  invoices: [
    ['sent', 'invoice.sent'],
    ['paid', 'invoice.paid'],
  ],
  quotes: [['accepted', 'quote.accepted']],
};

export class Deriver {
  /** Payments already reported, by id. */
  readonly #payments: BoundedMemory<number, true>;
  /** The last status of each invoice and quote, by `kind|id`. */
  readonly #status: BoundedMemory<string, string>;
  readonly #low = new Set<number>();
  constructor(
    private readonly now: () => number,
    memory = 50_000,
  ) {
    this.#payments = new BoundedMemory(memory);
    this.#status = new BoundedMemory(memory);
  }

  /** Products already low when polling starts: their next low reading is not a crossing. */
  seedLow(ids: Iterable<number>): void {
    for (const id of ids) this.#low.add(id);
  }

  /** The events for one record a list returned; [] for a state already reported or a change without an event. */
  derive(kind: PolledKind, record: Rec): BooksEvent[] {
    const stamp = stampOf(record) ?? '';
    if (kind === 'payments') {
      if (this.#payments.has(record.id)) return [];
      this.#payments.set(record.id, true);
      return [this.#event('payment.recorded', kind, record, stamp, relatedOf(record))];
    }
    if (kind === 'products') {
      const low = isLow(record);
      const wasLow = this.#low.has(record.id);
      if (low) this.#low.add(record.id);
      else this.#low.delete(record.id);
      return low && !wasLow ? [this.#event('stock.low', kind, record, stamp, [])] : [];
    }
    const status = String(record['status'] ?? '');
    const before = this.#status.get(`${kind}|${record.id}`);
    this.#status.set(`${kind}|${record.id}`, status);
    const hit = STATUS_EVENTS[kind]?.find(([s]) => s === status);
    return hit && before !== status ? [this.#event(hit[1], kind, record, stamp, [])] : [];
  }

  #event(kind: EventKind, recordKind: ResourceKind, record: Rec, stamp: string, related: BooksEvent['related']): BooksEvent {
    const digest = createHash('sha256').update(`${kind}|${record.id}|${stamp}`).digest('hex').slice(0, 24);
    return {
      id: `poll_${digest}`,
      kind,
      createdAt: new Date(this.now()).toISOString(),
      source: 'poll',
      record: { kind: recordKind, id: record.id },
      related,
      data: record,
    };
  }
}

function relatedOf(payment: Rec): BooksEvent['related'] {
  const allocations = Array.isArray(payment['allocations']) ? (payment['allocations'] as Record<string, unknown>[]) : [];
  return relatedInvoices(allocations.map((a) => a['invoice_id']).filter((id): id is number => typeof id === 'number'));
}
