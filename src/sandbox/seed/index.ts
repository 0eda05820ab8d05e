// The sample books, generated from a fixed seed: the same books on every machine and every run.
// `scale` repeats the main books' generation N times (more customers, products, invoices, ...).
import type { BooksData, BusinessProfile, Customer, IdSequences, Invoice, Payment, Product, Quote } from '../books.js';
import { takeId } from '../books.js';
import { createRng } from '../prng.js';
import { makeCustomers } from './customers.js';
import { makeInvoices } from './invoices.js';
import { makePayments } from './payments.js';
import { makeProducts } from './products.js';
import { MAIN_BUSINESS } from './profiles.js';
import { makeQuotes } from './quotes.js';

export { BOOKS_ANCHOR_MS, MAIN_BUSINESS, OTHER_BUSINESS } from './profiles.js';

const MAIN_COUNTS = { customers: 150, products: 64, invoices: 420, quotes: 90 };
const OTHER_COUNTS = { customers: 10, products: 6, invoices: 20, quotes: 5 };

const byId = <T extends { id: number }>(items: T[]): T[] => items.sort((a, b) => a.id - b.id);

export function generateBooks(profile: BusinessProfile, ids: IdSequences, options: { scale: number; seed: number }): BooksData {
  const rng = createRng(options.seed);
  const counts = profile.id === MAIN_BUSINESS.id ? MAIN_COUNTS : OTHER_COUNTS;
  const scale = Math.max(1, Math.floor(options.scale));
  const customers: Customer[] = [];
  const products: Product[] = [];
  for (let b = 0; b < scale; b++) {
    customers.push(...makeCustomers(rng, profile, ids, counts.customers, customers.length + 1));
    products.push(...makeProducts(rng, profile, ids, counts.products, b));
  }
  // Invoices and quotes in creation order across batches, so ids rise with time as in a real database.
  const invoices: Invoice[] = [];
  const quotes: Quote[] = [];
  for (let b = 0; b < scale; b++) {
    invoices.push(
      ...makeInvoices(rng, {
        profile,
        customers,
        products,
        count: counts.invoices,
        firstNumber: invoices.length + 1,
        nextId: () => takeId(ids, 'invoice'),
      }),
    );
    quotes.push(...makeQuotes(rng, profile, customers, counts.quotes, quotes.length + 1, () => takeId(ids, 'quote')));
  }
  const payments: Payment[] = makePayments(rng, profile, invoices, () => takeId(ids, 'payment'));
  return {
    customers: byId(customers),
    products: byId(products),
    invoices: byId(invoices),
    quotes: byId(quotes),
    payments: byId(payments),
    nextCustomerCode: customers.length + 1,
    nextInvoiceNumber: invoices.length + 1,
    nextQuoteNumber: quotes.length + 1,
  };
}
