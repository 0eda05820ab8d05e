// The sample books are made once per options and copied: each caller gets books equal to freshly generated
// ones, and its changes reach no other caller.
import { describe, expect, it } from 'vitest';
import { newIdSequences } from '../../src/sandbox/books.js';
import { generateBooks, MAIN_BUSINESS, OTHER_BUSINESS } from '../../src/sandbox/seed/index.js';
import { sampleBooks } from '../../src/sandbox/seed/sample-books.js';

const options = {
  scale: 1,
  seed: 7,
  businesses: [
    { profile: MAIN_BUSINESS, today: '2026-05-01' },
    { profile: OTHER_BUSINESS, today: '2026-04-30' },
  ],
};

describe('sampleBooks', () => {
  it('gives the books and id sequences that generating them would', () => {
    const ids = newIdSequences();
    const main = generateBooks(MAIN_BUSINESS, ids, { scale: 1, seed: 7 + MAIN_BUSINESS.id, today: '2026-05-01' });
    const other = generateBooks(OTHER_BUSINESS, ids, { scale: 1, seed: 7 + OTHER_BUSINESS.id, today: '2026-04-30' });
    const sample = sampleBooks(options, MAIN_BUSINESS.id);
    expect(sample.books.get(MAIN_BUSINESS.id)).toEqual(main);
    expect(sample.books.get(OTHER_BUSINESS.id)).toEqual(other);
    expect(sample.ids).toEqual(ids);
  });

  it("hands each caller a copy of its own: one caller's changes are not in the next one's books", () => {
    const first = sampleBooks(options, MAIN_BUSINESS.id);
    const invoice = first.books.get(MAIN_BUSINESS.id)!.invoices[0]!;
    const status = invoice.status;
    invoice.status = status === 'void' ? 'paid' : 'void';
    first.books.get(MAIN_BUSINESS.id)!.customers.pop();
    first.ids.invoice += 100;
    const second = sampleBooks(options, MAIN_BUSINESS.id);
    expect(second.books.get(MAIN_BUSINESS.id)!.invoices[0]!.status).toBe(status);
    expect(second.books.get(MAIN_BUSINESS.id)!.customers.length).toBe(first.books.get(MAIN_BUSINESS.id)!.customers.length + 1);
    expect(second.ids.invoice).toBe(first.ids.invoice - 100);
  });

  it('makes other books for another start day', () => {
    const later = sampleBooks({ ...options, businesses: options.businesses.map((b) => ({ ...b, today: '2026-05-02' })) }, MAIN_BUSINESS.id);
    const earlier = sampleBooks(options, MAIN_BUSINESS.id);
    expect(later.books.get(MAIN_BUSINESS.id)!.invoices[0]!.createdMs).toBe(
      earlier.books.get(MAIN_BUSINESS.id)!.invoices[0]!.createdMs + 86_400_000,
    );
  });
});
