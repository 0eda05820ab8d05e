import { describe, expect, it } from 'vitest';
import { newIdSequences } from '../../src/sandbox/books.js';
import { generateBooks, MAIN_BUSINESS, OTHER_BUSINESS } from '../../src/sandbox/seed/index.js';
import { Exact } from '../support/exact.js';

const SEED = 20261101;
const TODAY = '2027-03-15';

describe('the sample books', () => {
  it('are the same on every run', () => {
    const a = generateBooks(MAIN_BUSINESS, newIdSequences(), { scale: 1, seed: SEED, today: TODAY });
    const b = generateBooks(MAIN_BUSINESS, newIdSequences(), { scale: 1, seed: SEED, today: TODAY });
    expect(b).toEqual(a);
    const c = generateBooks(MAIN_BUSINESS, newIdSequences(), { scale: 1, seed: SEED + 1, today: TODAY });
    expect(c.invoices.map((i) => i.total)).not.toEqual(a.invoices.map((i) => i.total));
  });

  it('never share an id between businesses', () => {
    const ids = newIdSequences();
    const main = generateBooks(MAIN_BUSINESS, ids, { scale: 1, seed: SEED, today: TODAY });
    const other = generateBooks(OTHER_BUSINESS, ids, { scale: 1, seed: SEED, today: TODAY });
    for (const kind of ['customers', 'invoices', 'quotes', 'payments', 'products'] as const) {
      const mainIds = new Set(main[kind].map((r) => r.id));
      expect(
        other[kind].every((r) => !mainIds.has(r.id)),
        kind,
      ).toBe(true);
      expect(other[kind].length, kind).toBeGreaterThan(0);
    }
  });

  it('balance every invoice against the payments allocated to it', () => {
    const books = generateBooks(MAIN_BUSINESS, newIdSequences(), { scale: 1, seed: SEED, today: TODAY });
    // The test's own arithmetic: amounts written with exactly 2 places.
    const sum = (amounts: string[]): Exact => amounts.reduce((s, a) => s.plus(a), Exact.of(0));
    const allocated = new Map<number, string[]>();
    for (const p of books.payments) {
      expect(p.amount).toBe(sum(p.allocations.map((a) => a.amount)).toFixed(2));
      for (const a of p.allocations) allocated.set(a.invoice_id, [...(allocated.get(a.invoice_id) ?? []), a.amount]);
    }
    for (const inv of books.invoices) {
      const paid = sum(allocated.get(inv.id) ?? []);
      if (inv.status === 'void') continue;
      expect(inv.balance, inv.number).toBe(Exact.of(inv.total).minus(paid).toFixed(2));
      expect(inv.status === 'paid', inv.number).toBe(Exact.of(inv.balance).equals(0) && paid.gt(0));
    }
  });

  it('grow with --scale: 25 times the books hold more than 10,000 invoices', () => {
    const books = generateBooks(MAIN_BUSINESS, newIdSequences(), { scale: 25, seed: SEED, today: TODAY });
    expect(books.invoices.length).toBeGreaterThanOrEqual(10_000);
    expect(new Set(books.invoices.map((i) => i.number)).size).toBe(books.invoices.length);
    expect(new Set(books.customers.map((c) => c.code)).size).toBe(books.customers.length);
    expect(new Set(books.products.map((p) => p.sku).filter(Boolean)).size).toBe(books.products.filter((p) => p.sku).length);
  });
});
