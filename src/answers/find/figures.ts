// One search over the books: customers (name, code, email), invoices and quotes (number), products (name,
// SKU, barcode). Each term is searched on its own, so one call finds the customer and the products of
// "3 cedar brackets for Tui Logistics". Exact identifiers rank first, then names holding every word.
import type { CustomerRow, InvoiceRow, ProductRow, QuoteRow, TextMatch } from '../../store/types.js';

export interface FoundCustomer {
  id: number;
  code: string;
  name: string;
  email: string | null;
  status: string;
}
export interface FoundInvoice {
  id: number;
  number: string;
  status: string;
  customer_id: number;
  customer_name: string;
  currency: string;
  total: string;
  balance: string;
}
export interface FoundQuote {
  id: number;
  number: string;
  status: string;
  customer_id: number;
  customer_name: string;
  total: string;
}
export type FoundProduct = Pick<ProductRow, 'id' | 'name' | 'sku' | 'barcode' | 'type' | 'default_price' | 'is_active'>;

export interface FoundTerm {
  term: string;
  customers: FoundCustomer[];
  invoices: FoundInvoice[];
  quotes: FoundQuote[];
  products: FoundProduct[];
}

export interface FindBooks {
  customers: readonly CustomerRow[];
  invoices: readonly InvoiceRow[];
  quotes: readonly QuoteRow[];
  products: readonly ProductRow[];
}

// "brackets" finds "Bracket": words lose a plural s before they are compared, and a word of the term
// may be the start of a word of the name.
export const nameWords = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));

/** What the store may narrow a search for this term to, before it is scored here. */
export const textMatch = (term: string): TextMatch => ({ equals: term, words: nameWords(term) });

function nameScore(term: string, name: string): number {
  const wanted = nameWords(term);
  const have = nameWords(name);
  if (wanted.length === 0 || !wanted.every((w) => have.some((h) => h.startsWith(w)))) return 0;
  return name.toLowerCase() === term.toLowerCase() ? 3 : 1 + wanted.length / Math.max(have.length, 1);
}

const same = (a: string | null, b: string): boolean => a !== null && a.trim().toLowerCase() === b.trim().toLowerCase();

function best<T extends { id: number }>(rows: readonly T[], score: (row: T) => number, limit: number): T[] {
  return rows
    .map((row) => ({ row, s: score(row) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.row.id - b.row.id)
    .slice(0, limit)
    .map((x) => x.row);
}

const active = (isActive: boolean): number => (isActive ? 0.5 : 0);

export function findInBooks(books: FindBooks, terms: readonly string[], limit: number): FoundTerm[] {
  return terms.map((term) => ({
    term,
    customers: best(
      books.customers,
      (c) =>
        same(c.code, term) || same(c.email, term)
          ? 10
          : nameScore(term, c.name) + (nameScore(term, c.name) > 0 ? active(c.status === 'active') : 0),
      limit,
    ).map(({ id, code, name, email, status }) => ({ id, code, name, email, status })),
    invoices: best(books.invoices, (i) => (same(i.number, term) ? 10 : 0), limit).map(
      ({ id, number, status, customer_id, customer_name, currency, total, balance }) => ({
        id,
        number,
        status,
        customer_id,
        customer_name,
        currency,
        total,
        balance,
      }),
    ),
    quotes: best(books.quotes, (q) => (same(q.number, term) ? 10 : 0), limit).map(
      ({ id, number, status, customer_id, customer_name, total }) => ({
        id,
        number,
        status,
        customer_id,
        customer_name,
        total,
      }),
    ),
    products: best(
      books.products,
      (p) =>
        same(p.sku, term) || same(p.barcode, term) ? 10 : nameScore(term, p.name) + (nameScore(term, p.name) > 0 ? active(p.is_active) : 0),
      limit,
    ).map(({ id, name, sku, barcode, type, default_price, is_active }) => ({ id, name, sku, barcode, type, default_price, is_active })),
  }));
}

/** A customer named by id, code, email or name: the one that fits, or every candidate when several do. */
export function resolveCustomer(customers: readonly CustomerRow[], ref: string): CustomerRow[] {
  const text = ref.trim();
  if (/^\d+$/.test(text)) return customers.filter((c) => c.id === Number(text));
  const exact = customers.filter((c) => same(c.code, text) || same(c.email, text) || same(c.name, text));
  if (exact.length > 0) return exact;
  return best(customers, (c) => nameScore(text, c.name), 10);
}
