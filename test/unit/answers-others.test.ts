import { describe, expect, it } from 'vitest';
import { answerCustomer } from '../../src/answers/customer/figures.js';
import { findInBooks, resolveCustomer } from '../../src/answers/find/figures.js';
import { answerLowStock } from '../../src/answers/low-stock/figures.js';
import { answerQuotes } from '../../src/answers/quotes/figures.js';
import { answerReceived } from '../../src/answers/received/figures.js';
import { shortQuantity } from '../../tools/format.js';
import { customer, invoice, payment, product, quote, TODAY } from './answers-rows.js';

describe('money received', () => {
  const payments = [
    payment({ id: 1, amount: '10.10', method: 'cash', allocations: [{ invoice_id: 4, invoice_number: 'INV-00004', amount: '10.10' }] }),
    payment({ id: 2, amount: '0.90', payment_date: '2026-11-20', allocations: [] }),
    payment({ id: 3, amount: '7.00', currency: 'AUD', payment_date: '2026-11-21' }),
    payment({ id: 4, amount: '1000.00', payment_date: '2026-10-31' }),
  ];
  const range = { from: '2026-11-01', to: '2026-11-30' };

  it('sums per currency with the allocated part, groups by method, and lists the newest first', () => {
    const a = answerReceived(payments, { range, groupBy: 'method', limit: 10 });
    expect(a.totals).toEqual([
      { currency: 'AUD', count: 1, amount: '7.00', allocated: '0.00' },
      { currency: 'NZD', count: 2, amount: '11.00', allocated: '10.10' },
    ]);
    // Ranked within each currency, never across.
    expect(a.groups.map((g) => [g.key, g.currency, g.amount])).toEqual([
      ['card', 'AUD', '7.00'],
      ['cash', 'NZD', '10.10'],
      ['card', 'NZD', '0.90'],
    ]);
    expect(a.payments.map((p) => p.id)).toEqual([3, 2, 1]);
    expect(a.payments[2]?.paid).toEqual([{ invoice_id: 4, invoice_number: 'INV-00004', amount: '10.10' }]);
  });

  it('limits groups per currency, and pages the payments past the limit', () => {
    const top = answerReceived(payments, { range, groupBy: 'method', limit: 1 });
    expect(top.groups.map((g) => [g.key, g.currency])).toEqual([
      ['card', 'AUD'],
      ['cash', 'NZD'],
    ]);
    expect(top.groups_left_out).toBe(1);
    const second = answerReceived(payments, { range, limit: 2, offset: 2 });
    expect(second.payments.map((p) => p.id)).toEqual([1]);
    expect(second.payments_left_out).toBe(0);
    const first = answerReceived(payments, { range, limit: 2 });
    expect([first.payments.map((p) => p.id), first.payments_left_out]).toEqual([[3, 2], 1]);
  });
});

describe('open quotes', () => {
  const quotes = [
    quote({ id: 1, valid_until: '2026-11-25', total: '10.50' }),
    quote({ id: 2, valid_until: '2026-12-31', total: '0.50', status: 'draft' }),
    quote({ id: 3, status: 'accepted', total: '99.00' }),
    quote({ id: 4, status: 'expired', total: '99.00' }),
    quote({ id: 5, valid_until: '2026-11-23', status: 'viewed', total: '1.00' }),
  ];

  it('counts draft, sent and viewed quotes and those valid until today + N or sooner', () => {
    const a = answerQuotes(quotes, { today: TODAY, expiringDays: 2, limit: 10 });
    expect(a.open).toEqual([{ currency: null, count: 3, value: '12.00' }]);
    expect(a.expiring).toEqual([{ currency: null, count: 2, value: '11.50' }]);
    expect(a.quotes.map((q) => [q.id, q.days_left])).toEqual([
      [5, 0],
      [1, 2],
    ]);
  });
});

describe('low stock per branch', () => {
  const branches = (a: string, b: string) => [
    { branch_id: 1, branch: 'Auckland', on_hand: a },
    { branch_id: 2, branch: 'Wellington', on_hand: b },
  ];
  const products = [
    product({
      id: 1,
      stock: { on_hand: '30.000000', reorder_level: '10.000000', low: false, branches: branches('25.000000', '5.000000') },
    }),
    product({
      id: 2,
      stock: { on_hand: '20.500000', reorder_level: '10.000000', low: false, branches: branches('10.000000', '10.500000') },
    }),
    product({
      id: 3,
      is_active: false,
      stock: { on_hand: '0.000000', reorder_level: '10.000000', low: true, branches: branches('0.000000', '0.000000') },
    }),
  ];

  it("compares each branch's own stock with the reorder level, not the total", () => {
    const a = answerLowStock(products, 'wellington');
    expect(a.items).toEqual([
      { product_id: 1, name: 'Product 1', sku: null, branch_id: 2, branch: 'Wellington', on_hand: '5', reorder_level: '10', short_by: '5' },
    ]);
    expect(answerLowStock(products).items.map((i) => [i.branch_id, i.product_id])).toEqual([
      [1, 2],
      [2, 1],
    ]);
    expect(() => answerLowStock(products, 'Nelson')).toThrow(/no branch "Nelson": the branches are Auckland \(1\), Wellington \(2\)/);
  });
});

describe('find and one customer', () => {
  const customers = [
    customer({ id: 1, name: 'Tui Logistics Ltd', email: 'accounts@tui.example' }),
    customer({ id: 2, name: 'Tui Bakery', status: 'archived' }),
    customer({ id: 3, name: 'Kea Cafe', code: 'CUS-00077' }),
  ];
  const products = [
    product({ id: 7, name: 'Cedar Bracket 90mm', sku: 'CB-90' }),
    product({ id: 8, name: 'Cedar Plank', barcode: '9400000000017' }),
  ];
  const invoices = [invoice({ id: 421, number: 'INV-00421' })];

  it('searches each term across kinds: names by every word (plurals too), codes, numbers, SKUs and barcodes exactly', () => {
    const found = findInBooks(
      { customers, invoices, quotes: [], products },
      ['Tui Logistics', 'cedar brackets', 'inv-00421', '9400000000017', 'CUS-00077'],
      5,
    );
    expect(found.map((f) => [f.customers.map((c) => c.id), f.invoices.map((i) => i.id), f.products.map((p) => p.id)])).toEqual([
      [[1], [], []],
      [[], [], [7]],
      [[], [421], []],
      [[], [], [8]],
      [[3], [], []],
    ]);
  });

  it('resolves a customer by id, code, email or name, and gives every candidate when a name fits several', () => {
    expect(resolveCustomer(customers, '3').map((c) => c.id)).toEqual([3]);
    expect(resolveCustomer(customers, 'cus-00077').map((c) => c.id)).toEqual([3]);
    expect(resolveCustomer(customers, 'accounts@tui.example').map((c) => c.id)).toEqual([1]);
    expect(
      resolveCustomer(customers, 'tui')
        .map((c) => c.id)
        .sort(),
    ).toEqual([1, 2]);
  });

  it("sums one customer's balance and past due per currency and keeps their latest payments", () => {
    const own = [
      invoice({ id: 1, balance: '10.00', due_date: '2026-11-30' }),
      invoice({ id: 2, balance: '2.50', due_date: '2026-11-01', status: 'overdue' }),
      invoice({ id: 3, balance: '99.00', customer_id: 3 }),
      invoice({ id: 4, balance: '0.00', status: 'paid' }),
    ];
    const pays = [
      payment({ id: 1, payment_date: '2026-01-01' }),
      payment({ id: 2, payment_date: '2026-11-01' }),
      payment({ id: 3, payment_date: '2026-06-01' }),
    ];
    const a = answerCustomer(
      customers[0]!,
      { invoices: own, payments: pays, quotes: [quote({ id: 9 }), quote({ id: 10, status: 'declined' })] },
      TODAY,
      2,
    );
    expect(a.balances).toEqual([{ currency: 'NZD', count: 2, balance: '12.50', past_due: '2.50' }]);
    expect(a.unpaid.map((i) => [i.id, i.days_past_due])).toEqual([
      [2, 22],
      [1, 0],
    ]);
    expect(a.payments.map((p) => p.id)).toEqual([2, 3]);
    expect(a.open_quotes.map((q) => q.id)).toEqual([9]);
  });
});

describe('quantities', () => {
  it('print in their shortest exact form', () => {
    expect(['6.000000', '2.500000', '0.000001', '120.000000'].map(shortQuantity)).toEqual(['6', '2.5', '0.000001', '120']);
  });
});
