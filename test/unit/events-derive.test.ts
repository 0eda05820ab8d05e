// The poller's derivation: an event when a record reaches a state (sent, paid, accepted; a tracked product
// at or below its reorder level), once per state reached (stamps are whole seconds, so two changes may
// share one), payment.recorded once per payment, stock.low once per crossing.
import { describe, expect, it } from 'vitest';
import { Deriver, isLow } from '../../src/events/derive.js';

const NOW = Date.parse('2026-11-23T00:00:00Z');
const inv = (status: string, stamp: string) => ({ id: 5, status, updated_at: `2026-11-23T10:00:${stamp}+13:00` });
const product = (onHand: string, stamp: string, track = true) => ({
  id: 9,
  track_stock: track,
  stock: { on_hand: onHand, reorder_level: '10.000000', low: Number(onHand) <= 10, branches: [] },
  updated_at: `2026-11-23T10:00:${stamp}+13:00`,
});

describe('Deriver', () => {
  it('invoice.sent and invoice.paid when an invoice reaches those states, not for other changes', () => {
    const d = new Deriver(() => NOW);
    expect(d.derive('invoices', inv('draft', '00'))).toEqual([]);
    const [sent] = d.derive('invoices', inv('sent', '01'));
    expect(sent).toMatchObject({ kind: 'invoice.sent', source: 'poll', record: { kind: 'invoices', id: 5 }, related: [], createdAt: '2026-11-23T00:00:00.000Z' });
    expect(sent?.id).toMatch(/^poll_[0-9a-f]{24}$/);
    expect(d.derive('invoices', inv('sent', '01'))).toEqual([]);
    expect(d.derive('invoices', inv('sent', '02'))).toEqual([]);
    expect(d.derive('invoices', inv('part_paid', '03'))).toEqual([]);
    expect(d.derive('invoices', inv('paid', '04')).map((e) => e.kind)).toEqual(['invoice.paid']);
  });

  it('a state reached within the second of the last read is still news (stamps are whole seconds)', () => {
    const d = new Deriver(() => NOW);
    expect(d.derive('invoices', inv('draft', '07'))).toEqual([]);
    expect(d.derive('invoices', inv('sent', '07')).map((e) => e.kind)).toEqual(['invoice.sent']);
    expect(d.derive('invoices', inv('paid', '07')).map((e) => e.kind)).toEqual(['invoice.paid']);
    expect(d.derive('quotes', { id: 4, status: 'sent', updated_at: 'x' })).toEqual([]);
    expect(d.derive('quotes', { id: 4, status: 'accepted', updated_at: 'x' }).map((e) => e.kind)).toEqual(['quote.accepted']);
  });

  it('the same change gives the same event id (so the bus can drop a second report)', () => {
    const a = new Deriver(() => NOW).derive('quotes', { id: 2, status: 'accepted', updated_at: 'x' });
    const b = new Deriver(() => NOW + 1000).derive('quotes', { id: 2, status: 'accepted', updated_at: 'x' });
    expect(a.map((e) => e.kind)).toEqual(['quote.accepted']);
    expect(a[0]?.id).toBe(b[0]?.id);
  });

  it('payment.recorded for each new payment, related to its allocations\' invoices', () => {
    const d = new Deriver(() => NOW);
    const payment = { id: 3, created_at: 'x', allocations: [{ invoice_id: 7 }, { invoice_id: 8 }, { invoice_id: 7 }] };
    const [event] = d.derive('payments', payment);
    expect(event).toMatchObject({ kind: 'payment.recorded', record: { kind: 'payments', id: 3 }, related: [{ kind: 'invoices', id: 7 }, { kind: 'invoices', id: 8 }] });
    expect(d.derive('payments', payment)).toEqual([]);
    expect(d.derive('payments', { ...payment, updated_at: 'later' })).toEqual([]);
  });

  it('stock.low once per crossing; products already low at the start do not count', () => {
    const d = new Deriver(() => NOW);
    d.seedLow([9]);
    expect(d.derive('products', product('8', '00'))).toEqual([]);
    expect(d.derive('products', product('12', '01'))).toEqual([]);
    expect(d.derive('products', product('10', '02')).map((e) => e.kind)).toEqual(['stock.low']);
    expect(d.derive('products', product('9.5', '03'))).toEqual([]);
    expect(d.derive('products', product('11', '04'))).toEqual([]);
    expect(d.derive('products', product('3', '05')).map((e) => e.kind)).toEqual(['stock.low']);
  });

  it('reads low stock from the numbers, for tracked products only', () => {
    expect(isLow(product('10.000000', '00'))).toBe(true);
    expect(isLow(product('10.000001', '00'))).toBe(false);
    expect(isLow(product('1', '00', false))).toBe(false);
    expect(isLow({ id: 1, track_stock: true, stock: null })).toBe(false);
  });
});

describe('CallBudget', () => {
  it('allows share × limit calls per window (120 assumed until the limit is known), then frees them as the window slides', async () => {
    const { CallBudget } = await import('../../src/events/poller.js');
    let t = 0;
    let limit: number | null = null;
    const budget = new CallBudget(0.1, 60_000, () => limit, () => t);
    const take = (n: number) => Array.from({ length: n }, () => budget.take()).filter(Boolean).length;
    expect(take(20)).toBe(12);
    limit = 40;
    t = 59_999;
    expect(take(1)).toBe(0);
    t = 60_000;
    expect(take(10)).toBe(4);
    limit = 5;
    t = 200_000;
    expect(take(3)).toBe(1);
  });
});
