// The books of one business in one mode, indexed by id, with each record's rendered JSON cached until
// the record changes (lists at per_page=100 are the sandbox's hot path).
import type { BooksData, Customer, Invoice, Payment, Product, Quote } from './books.js';

export interface Identified {
  id: number;
  updatedMs: number;
}

export class Collection<T extends Identified> {
  readonly items: T[];
  readonly #byId = new Map<number, T>();
  readonly #rendered = new WeakMap<T, Map<string, string>>();

  constructor(items: T[]) {
    this.items = items;
    for (const item of items) this.#byId.set(item.id, item);
  }

  get(id: number): T | undefined {
    return this.#byId.get(id);
  }

  /** Appends a new record; ids come from a rising global sequence, so ascending order holds. */
  add(item: T): void {
    this.items.push(item);
    this.#byId.set(item.id, item);
  }

  /** Marks a record changed at `nowMs`, dropping its cached renderings. */
  touch(item: T, nowMs: number): void {
    item.updatedMs = Math.max(nowMs, item.updatedMs);
    this.#rendered.delete(item);
  }

  /** The record's JSON for one view, rendered once until it changes. */
  json(item: T, view: string, render: (item: T) => unknown): string {
    let views = this.#rendered.get(item);
    if (!views) {
      views = new Map();
      this.#rendered.set(item, views);
    }
    let text = views.get(view);
    if (text === undefined) {
      text = JSON.stringify(render(item));
      views.set(view, text);
    }
    return text;
  }
}

export class Books {
  readonly customers: Collection<Customer>;
  readonly invoices: Collection<Invoice>;
  readonly quotes: Collection<Quote>;
  readonly payments: Collection<Payment>;
  readonly products: Collection<Product>;
  nextCustomerCode: number;
  nextInvoiceNumber: number;
  nextQuoteNumber: number;

  constructor(data: BooksData) {
    this.customers = new Collection(data.customers);
    this.invoices = new Collection(data.invoices);
    this.quotes = new Collection(data.quotes);
    this.payments = new Collection(data.payments);
    this.products = new Collection(data.products);
    this.nextCustomerCode = data.nextCustomerCode;
    this.nextInvoiceNumber = data.nextInvoiceNumber;
    this.nextQuoteNumber = data.nextQuoteNumber;
  }
}
