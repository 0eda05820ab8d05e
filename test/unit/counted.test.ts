// Counts in our words: one noun for exactly one, its plural for any other count (0 too), made right for the
// nouns the answers count.
import { describe, expect, it } from 'vitest';
import { counted, nounFor } from '../../src/core/counted.js';

describe('counted', () => {
  it('says "1 invoice" and "0 invoices", "2 invoices"', () => {
    expect([0, 1, 2].map((n) => counted(n, 'invoice'))).toEqual(['0 invoices', '1 invoice', '2 invoices']);
    expect(counted(-1, 'day')).toBe('-1 days');
  });

  it('makes the plurals the answers need, and takes one given', () => {
    expect(['payment', 'day', 'status', 'branch', 'entry', 'sign-in'].map((one) => nounFor(2, one))).toEqual([
      'payments',
      'days',
      'statuses',
      'branches',
      'entries',
      'sign-ins',
    ]);
    expect(counted(3, 'person', 'people')).toBe('3 people');
    expect(counted(1, 'person', 'people')).toBe('1 person');
  });
});
