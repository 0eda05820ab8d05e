import { describe, expect, it } from 'vitest';
import { periodOf, resolveRange } from '../../src/answers/dates.js';
import { answerSales, lineSumsOf, productShare, salesInvoices } from '../../src/answers/sales/figures.js';
import { fromScaled, unitsOf } from '../../src/store/sqlite/exact-sums.js';
import { invoice, line, TODAY } from './answers-rows.js';

const rows = [
  invoice({ id: 1, issue_date: '2026-11-02', subtotal: '10.00', tax_total: '1.50', total: '11.50', sales_channel: 'pos' }),
  invoice({ id: 2, issue_date: '2026-11-09', subtotal: '20.05', tax_total: '3.01', total: '23.06', customer_id: 2, customer_name: 'Kea' }),
  invoice({ id: 3, issue_date: '2026-10-31', subtotal: '99.00', tax_total: '0.00', total: '99.00' }),
  invoice({ id: 4, issue_date: '2026-11-03', status: 'draft', subtotal: '5.00', tax_total: '0.75', total: '5.75' }),
  invoice({ id: 5, issue_date: '2026-11-03', status: 'void', subtotal: '5.00', tax_total: '0.75', total: '5.75' }),
  invoice({ id: 6, issue_date: '2026-11-20', currency: 'USD', subtotal: '1.00', tax_total: '0.00', total: '1.00' }),
];

describe('date ranges and periods', () => {
  it('names this and last month, quarters, years and the last N days from today', () => {
    expect(resolveRange({ range: 'this_month' }, TODAY)).toEqual({ from: '2026-11-01', to: TODAY });
    expect(resolveRange({ range: 'this_year' }, TODAY)).toEqual({ from: '2026-01-01', to: TODAY });
    expect(resolveRange({}, TODAY)).toEqual({ from: '2026-11-01', to: TODAY });
    expect(resolveRange({ range: 'last_month' }, '2026-01-15')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    expect(resolveRange({ range: 'last_quarter' }, TODAY)).toEqual({ from: '2026-07-01', to: '2026-09-30' });
    expect(resolveRange({ range: 'this_quarter' }, TODAY)).toEqual({ from: '2026-10-01', to: TODAY });
    expect(resolveRange({ range: 'last_month' }, '2024-03-31')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(resolveRange({ days: 30 }, TODAY)).toEqual({ from: '2026-10-25', to: TODAY });
    expect(resolveRange({ from: '2026-01-01' }, TODAY)).toEqual({ from: '2026-01-01', to: TODAY });
  });

  it('refuses a day that is not one, a reversed range and two ways of giving the dates, saying what to send', () => {
    expect(() => resolveRange({ from: '2026-02-30' }, TODAY)).toThrow('from: 2026-02-30 is not a date: send YYYY-MM-DD, e.g. 2026-02-28');
    expect(() => resolveRange({ to: '2026-13-01' }, TODAY)).toThrow('e.g. 2026-12-01');
    expect(() => resolveRange({ from: '2026-03-01', to: '2026-02-01' }, TODAY)).toThrow(
      'from 2026-03-01 is after to 2026-02-01: send from on or before to, e.g. from "2026-02-01", to "2026-03-01"',
    );
    expect(() => resolveRange({ range: 'this_year', days: 30 }, TODAY)).toThrow('range and days both give the dates: send one of');
    expect(() => resolveRange({ days: 7, from: '2026-01-01' }, TODAY)).toThrow('days and from/to both give the dates');
  });

  it('puts a date in its day, week (from Monday), month and quarter', () => {
    expect(periodOf('2026-11-22', 'week')).toBe('2026-11-16');
    expect(periodOf('2026-11-23', 'week')).toBe('2026-11-23');
    expect(periodOf('2026-11-23', 'month')).toBe('2026-11');
    expect(periodOf('2026-11-23', 'quarter')).toBe('2026-Q4');
  });
});

describe('sales', () => {
  const range = resolveRange({ range: 'this_month' }, TODAY);

  it('sums invoiced count, subtotal, tax and total per currency, leaving out draft and void', () => {
    expect(answerSales(rows, { range, limit: 10 }).totals).toEqual([
      { currency: 'NZD', count: 2, subtotal: '30.05', tax: '4.51', total: '34.56' },
      { currency: 'USD', count: 1, subtotal: '1.00', tax: '0.00', total: '1.00' },
    ]);
    expect(answerSales(rows, { range, statuses: ['draft', 'void'], limit: 10 }).totals[0]).toMatchObject({ count: 2, total: '11.50' });
  });

  it('groups by channel, customer and week', () => {
    const channel = answerSales(rows, { range, groupBy: 'channel', limit: 10 }).groups;
    expect(channel.map((g) => [g.key, g.currency, g.total])).toEqual([
      [null, 'NZD', '23.06'],
      ['pos', 'NZD', '11.50'],
      [null, 'USD', '1.00'],
    ]);
    const week = answerSales(rows, { range, groupBy: 'week', limit: 10 }).groups;
    expect(week.map((g) => [g.key, g.count])).toEqual([
      ['2026-11-02', 1],
      ['2026-11-09', 1],
      ['2026-11-16', 1],
    ]);
    // Ranked within each currency, never across: the limit is per currency.
    const top = answerSales(rows, { range, groupBy: 'customer', limit: 1 });
    expect(top.groups.map((g) => [g.key, g.currency])).toEqual([
      [2, 'NZD'],
      [1, 'USD'],
    ]);
    expect(top.groups_left_out).toBe(1);
  });

  it('groups by product from the lines and says how many invoices had lines', () => {
    const lines = [
      line({ invoice_id: 1, quantity: '2.000000', line_total: '10.00', tax_amount: '1.50' }),
      line({ invoice_id: 2, quantity: '0.500000', line_total: '5.05', tax_amount: '0.76', position: 0 }),
      line({
        invoice_id: 2,
        quantity: '3.000000',
        line_total: '15.00',
        tax_amount: '2.25',
        position: 1,
        product_id: null,
        description: 'Labour',
      }),
      line({ invoice_id: 3, quantity: '9.000000', line_total: '99.00', tax_amount: '0.00' }),
    ];
    const q = { range, groupBy: 'product' as const, limit: 10 };
    const a = answerSales(rows, q, lineSumsOf(salesInvoices(rows, q), lines), new Map([[7, 'Cedar bracket 90mm']]));
    expect(a.groups).toEqual([
      { key: 7, label: 'Cedar bracket 90mm', currency: 'NZD', count: 2, subtotal: '15.05', tax: '2.26', total: '17.31', quantity: '2.5' },
      {
        key: null,
        label: 'lines without a product',
        currency: 'NZD',
        count: 1,
        subtotal: '15.00',
        tax: '2.25',
        total: '17.25',
        quantity: '3',
      },
    ]);
    expect(a.lines).toEqual({ with_lines: 2, invoices: 3 });
  });

  it("narrowed to one product, gives each customer and each currency's total that product's quantity, exactly", () => {
    const lines = [
      line({ invoice_id: 1, quantity: '2.000001', line_total: '10.00', tax_amount: '1.50' }),
      line({ invoice_id: 1, quantity: '0.999999', line_total: '5.00', tax_amount: '0.75', position: 1 }),
      line({ invoice_id: 2, quantity: '0.500000', line_total: '5.05', tax_amount: '0.76' }),
      line({ invoice_id: 2, quantity: '4.000000', line_total: '8.00', tax_amount: '1.20', position: 1, product_id: 8 }),
      line({ invoice_id: 6, quantity: '1.250000', line_total: '1.00', tax_amount: '0.00' }),
    ];
    const a = answerSales(productShare(rows, lines, 7), { range, groupBy: 'customer', limit: 10 });
    expect(a.groups.map((g) => [g.key, g.currency, g.count, g.quantity, g.total])).toEqual([
      [1, 'NZD', 1, '3', '17.25'],
      [2, 'NZD', 1, '0.5', '5.81'],
      [1, 'USD', 1, '1.25', '1.00'],
    ]);
    expect(a.totals.map((t) => [t.currency, t.quantity])).toEqual([
      ['NZD', '3.5'],
      ['USD', '1.25'],
    ]);
    // Not narrowed to a product, invoices carry no quantity.
    expect(answerSales(rows, { range, groupBy: 'customer', limit: 10 }).groups.every((g) => g.quantity === undefined)).toBe(true);
  });
});

describe('exact sums written back from whole units', () => {
  it('places the point, pads and keeps the sign', () => {
    expect(fromScaled('-1250', 2)).toBe('-12.50');
    expect(fromScaled('5', 3)).toBe('0.005');
    expect(fromScaled('-5', 3)).toBe('-0.005');
    expect(fromScaled('42', 0)).toBe('42');
    expect(fromScaled('900719925474099312345', 6)).toBe('900719925474099.312345');
  });

  it('gives units only to plain decimals of at most 18 digits', () => {
    expect(unitsOf('-12.50')).toEqual(['-1250', 2]);
    expect(unitsOf('6.000000')).toEqual(['6000000', 6]);
    expect(unitsOf('0.05')).toEqual(['5', 2]);
    expect(unitsOf('42')).toEqual(['42', 0]);
    expect(unitsOf('123456789012345678')).toEqual(['123456789012345678', 0]);
    for (const odd of ['1e3', '1234567890123456789', '.5', '5.', '1.2.3', '+5', ' 5', '', null])
      expect(unitsOf(odd), String(odd)).toEqual([null, null]);
    for (const [units, places] of [unitsOf('-12.50'), unitsOf('0.05'), unitsOf('6.000000')])
      expect(fromScaled(units!, places!)).toMatch(/^-?\d+\.\d+$/);
    expect(fromScaled(...(unitsOf('0.05') as [string, number]))).toBe('0.05');
  });
});
