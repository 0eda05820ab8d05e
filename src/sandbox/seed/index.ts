// The sample books, generated from a fixed seed and anchored to the sandbox's start day: the same records
// with the same dates relative to `today` on every machine and every run (see timeline.ts). `scale` repeats
// the main books' generation N times (more customers, products, invoices, ...).
import type { BooksData, BusinessProfile, Customer, IdSequences, Invoice, Payment, Product, Quote } from '../books.js';
import { takeId } from '../books.js';
import { createRng } from '../prng.js';
import { makeCustomers } from './customers.js';
import { makeInvoices } from './invoices.js';
import { makePayments } from './payments.js';
import { makeProducts } from './products.js';
import { MAIN_BUSINESS } from './profiles.js';
import { makeQuotes } from './quotes.js';
import { Timeline } from './timeline.js';

export { MAIN_BUSINESS, OTHER_BUSINESS } from './profiles.js';

const MAIN_COUNTS = { customers: 150, products: 64, invoices: 420, quotes: 90, tillSalesPerWeek: 4, openQuoteEveryDays: 3 };
const OTHER_COUNTS = { customers: 10, products: 6, invoices: 20, quotes: 5, tillSalesPerWeek: 1, openQuoteEveryDays: 9 };

const byId = <T extends { id: number }>(items: T[]): T[] => items.sort((a, b) => a.id - b.id);

export interface GenerateOptions {
  scale: number;
  seed: number;
  /** The business's start day, `YYYY-MM-DD` in its zone: the books end the day before. */
  today: string;
}

/** Turns the books' moments into instants in the business's zone, now that every draw is made. */
function toInstants(books: BooksData, timeline: Timeline): void {
  const records: { createdMs: number; updatedMs: number }[] = [...books.customers, ...books.products, ...books.invoices, ...books.payments];
  for (const r of records) {
    r.createdMs = timeline.instant(r.createdMs);
    r.updatedMs = timeline.instant(r.updatedMs);
  }
  for (const q of books.quotes) {
    q.createdMs = timeline.instant(q.createdMs);
    q.updatedMs = timeline.instant(q.updatedMs);
    if (q.acceptedMs !== null) q.acceptedMs = timeline.instant(q.acceptedMs);
  }
}

export function generateBooks(profile: BusinessProfile, ids: IdSequences, options: GenerateOptions): BooksData {
  const rng = createRng(options.seed);
  const timeline = new Timeline(options.today, profile.timeZone);
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
    const invoiceSeed = { profile, timeline, customers, products, count: counts.invoices, tillSalesPerWeek: counts.tillSalesPerWeek };
    invoices.push(...makeInvoices(rng, { ...invoiceSeed, firstNumber: invoices.length + 1, nextId: () => takeId(ids, 'invoice') }));
    const quoteSeed = { profile, timeline, customers, count: counts.quotes, openEveryDays: counts.openQuoteEveryDays };
    quotes.push(...makeQuotes(rng, { ...quoteSeed, firstNumber: quotes.length + 1, nextId: () => takeId(ids, 'quote') }));
  }
  const payments: Payment[] = makePayments(rng, timeline, invoices, () => takeId(ids, 'payment'));
  const books: BooksData = {
    customers: byId(customers),
    products: byId(products),
    invoices: byId(invoices),
    quotes: byId(quotes),
    payments: byId(payments),
    nextCustomerCode: customers.length + 1,
    nextInvoiceNumber: invoices.length + 1,
    nextQuoteNumber: quotes.length + 1,
  };
  toInstants(books, timeline);
  return books;
}
