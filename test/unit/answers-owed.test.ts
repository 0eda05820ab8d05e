import { describe, expect, it } from 'vitest';
import { ageBand, answerOwed } from '../../src/answers/owed/figures.js';
import { invoice, TODAY } from './answers-rows.js';

const rows = [
  invoice({ id: 1, due_date: '2026-11-30', balance: '100.10' }), // not yet due
  invoice({ id: 2, due_date: '2026-11-22', balance: '0.20', status: 'viewed' }), // 1 day
  invoice({ id: 3, due_date: '2026-09-24', balance: '30.00', status: 'approved', customer_id: 2, customer_name: 'Kea' }), // 60 days
  invoice({ id: 4, due_date: '2026-08-24', balance: '5.0001', status: 'issued', customer_id: 2, customer_name: 'Kea' }), // 91 days
  invoice({ id: 5, due_date: '2026-01-01', balance: '999.00', status: 'draft' }),
  invoice({ id: 6, due_date: '2026-01-01', balance: '999.00', status: 'void' }),
  invoice({ id: 7, due_date: '2026-01-01', balance: '0.00', status: 'paid' }),
  invoice({ id: 8, due_date: '2026-10-01', balance: '7.00', currency: 'AUD', status: 'part_paid' }),
];

describe('what is owed', () => {
  it('bands days past due: not due, 1-30, 31-60, 61-90, over 90', () => {
    expect([0, -3, 1, 30, 31, 60, 61, 90, 91].map(ageBand)).toEqual([
      'not_due',
      'not_due',
      '1_30',
      '1_30',
      '31_60',
      '31_60',
      '61_90',
      '61_90',
      'over_90',
    ]);
  });

  it('sums receivables exactly per currency, never across currencies, leaving out draft, void and nothing owed', () => {
    const a = answerOwed(rows, { today: TODAY, top: 10, invoiceLimit: 10 });
    expect(a.currencies.map((c) => [c.currency, c.count, c.balance])).toEqual([
      ['AUD', 1, '7.00'],
      ['NZD', 4, '135.3001'],
    ]);
    const nzd = a.currencies[1];
    expect(nzd?.past_due).toEqual({ count: 3, balance: '35.2001' });
    expect(nzd?.aged).toEqual({
      not_due: { count: 1, balance: '100.10' },
      '1_30': { count: 1, balance: '0.20' },
      '31_60': { count: 1, balance: '30.00' },
      '61_90': { count: 0, balance: '0.00' },
      over_90: { count: 1, balance: '5.0001' },
    });
  });

  it('ranks customers by balance, ties to the lower id, and lists invoices oldest due first', () => {
    const tie = [invoice({ id: 10, customer_id: 9, balance: '5.00' }), invoice({ id: 11, customer_id: 3, balance: '5.00' })];
    const a = answerOwed(tie, { today: TODAY, top: 1, invoiceLimit: 1 });
    expect(a.customers.map((c) => c.customer_id)).toEqual([3]);
    expect(a.invoices_left_out).toBe(1);
    expect(answerOwed(rows, { today: TODAY, top: 10, invoiceLimit: 10 }).invoices.map((i) => i.id)).toEqual([4, 3, 8, 2, 1]);
  });

  it('keeps only what is more than N days past due, and one customer', () => {
    expect(answerOwed(rows, { today: TODAY, overDays: 60, top: 10, invoiceLimit: 10 }).invoices.map((i) => i.id)).toEqual([4]);
    expect(answerOwed(rows, { today: TODAY, overDays: 59, top: 10, invoiceLimit: 10 }).invoices.map((i) => i.id)).toEqual([4, 3]);
    expect(answerOwed(rows, { today: TODAY, customerId: 2, top: 10, invoiceLimit: 10 }).currencies[0]?.balance).toBe('35.0001');
  });
});
