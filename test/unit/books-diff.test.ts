// Events from the mirror's diffs: a state reached (sent, paid, accepted; a tracked product at or below its
// reorder level) against the stored record, a new payment, and for records the mirror never held, only
// those the service changed after the mirror began reading.
import { describe, expect, it } from 'vitest';
import { diffEvents, isLow } from '../../src/books/diff.js';
import type { Rec } from '../../src/store/record.js';

const NOW = Date.parse('2026-11-23T00:00:00Z');
const warm = { newSince: -Infinity, now: () => NOW };
const inv = (status: string, stamp: string): Rec => ({ id: 5, status, updated_at: `2026-11-23T10:00:${stamp}+13:00` });
const product = (onHand: string, stamp: string, track = true): Rec => ({
  id: 9,
  track_stock: track,
  stock: { on_hand: onHand, reorder_level: '10.000000', low: Number(onHand) <= 10, branches: [] },
  updated_at: `2026-11-23T10:00:${stamp}+13:00`,
});
const kinds = (events: { kind: string }[]) => events.map((e) => e.kind);

describe('diffEvents', () => {
  it('invoice.sent and invoice.paid when an invoice reaches those states, not for other changes', () => {
    const [sent] = diffEvents('invoices', inv('draft', '00'), inv('sent', '00'), warm);
    expect(sent).toMatchObject({
      kind: 'invoice.sent',
      source: 'poll',
      record: { kind: 'invoices', id: 5 },
      related: [],
      createdAt: '2026-11-23T00:00:00.000Z',
    });
    expect(sent?.id).toMatch(/^poll_[0-9a-f]{24}$/);
    expect(diffEvents('invoices', inv('sent', '00'), inv('sent', '01'), warm)).toEqual([]);
    expect(diffEvents('invoices', inv('sent', '01'), inv('part_paid', '02'), warm)).toEqual([]);
    expect(kinds(diffEvents('invoices', inv('part_paid', '02'), inv('paid', '03'), warm))).toEqual(['invoice.paid']);
    expect(kinds(diffEvents('quotes', { id: 4, status: 'sent' }, { id: 4, status: 'accepted' }, warm))).toEqual(['quote.accepted']);
  });

  it('the same change gives the same event id (so the bus drops a second report)', () => {
    const a = diffEvents('quotes', { id: 2, status: 'sent' }, { id: 2, status: 'accepted', updated_at: 'x' }, warm);
    const b = diffEvents(
      'quotes',
      undefined,
      { id: 2, status: 'accepted', updated_at: 'x' },
      { newSince: -Infinity, now: () => NOW + 1000 },
    );
    expect(a[0]?.id).toBe(b[0]?.id);
  });

  it("payment.recorded for a new payment, related to its allocations' invoices; never for one already held", () => {
    const payment: Rec = { id: 3, created_at: 'x', allocations: [{ invoice_id: 7 }, { invoice_id: 8 }, { invoice_id: 7 }] };
    const [event] = diffEvents('payments', undefined, payment, warm);
    expect(event).toMatchObject({
      kind: 'payment.recorded',
      record: { kind: 'payments', id: 3 },
      related: [
        { kind: 'invoices', id: 7 },
        { kind: 'invoices', id: 8 },
      ],
    });
    expect(diffEvents('payments', payment, payment, warm)).toEqual([]);
  });

  it('stock.low when a product crosses its reorder level, not while it stays low', () => {
    expect(kinds(diffEvents('products', product('12', '00'), product('10', '01'), warm))).toEqual(['stock.low']);
    expect(diffEvents('products', product('10', '01'), product('9.5', '02'), warm)).toEqual([]);
    expect(diffEvents('products', product('9', '02'), product('11', '03'), warm)).toEqual([]);
  });

  it('a record never held is news only when changed after the mirror began reading', () => {
    const since = Date.parse('2026-11-23T10:00:05+13:00');
    const first = { newSince: since, now: () => NOW };
    expect(diffEvents('invoices', undefined, inv('sent', '04'), first)).toEqual([]);
    expect(kinds(diffEvents('invoices', undefined, inv('sent', '05'), first))).toEqual(['invoice.sent']);
    expect(diffEvents('invoices', undefined, inv('draft', '06'), first)).toEqual([]);
    expect(kinds(diffEvents('products', undefined, product('3', '06'), first))).toEqual(['stock.low']);
  });

  it('reads low stock from the numbers, for tracked products only', () => {
    expect(isLow(product('10.000000', '00'))).toBe(true);
    expect(isLow(product('10.000001', '00'))).toBe(false);
    expect(isLow(product('1', '00', false))).toBe(false);
    expect(isLow({ id: 1, track_stock: true, stock: null })).toBe(false);
  });
});
