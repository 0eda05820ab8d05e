// The read endpoints: a list and a get for each resource.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../api-error.js';
import { sessionRoute } from '../api-route.js';
import type { Customer, Invoice, Payment, Product, Quote } from '../books.js';
import { INVOICE_STATUSES, QUOTE_STATUSES } from '../books.js';
import type { Caller } from '../call.js';
import type { Collection, Identified } from '../collection.js';
import { booleanFilter, enumFilter, type Filter, integerFilter, type Query, runList, textFilter } from '../list-query.js';
import type { ViewContext } from '../views.js';
import { customerView, invoiceListView, invoiceView, isLowStock, paymentView, productView, quoteView } from '../views.js';
import type { World } from '../world.js';

interface Resource<T extends Identified> {
  path: string;
  noun: string;
  scope: string;
  collection: (books: Caller['books']) => Collection<T>;
  filters: Filter<T>[];
  listView: (ctx: ViewContext, item: T) => unknown;
  oneView: (ctx: ViewContext, item: T) => unknown;
}

const ID_RE = /^[1-9][0-9]{0,14}$/;

/** The record for a path id, or 404: ids that are not integers, never existed or are another business's. */
export function findRecord<T extends Identified>(collection: Collection<T>, rawId: string, noun: string): T {
  const record = ID_RE.test(rawId) ? collection.get(Number(rawId)) : undefined;
  if (!record) throw notFound(`No ${noun} with id ${rawId} in this business.`);
  return record;
}

function register<T extends Identified>(app: FastifyInstance, world: World, r: Resource<T>): void {
  app.get(
    r.path,
    sessionRoute(world, r.scope, (request, caller) => ({
      status: 200,
      body: runList<T>({
        collection: r.collection(caller.books),
        filters: r.filters,
        query: request.query as Query,
        timeZone: caller.business.profile.timeZone,
        url: `${world.baseUrl}${r.path}`,
        view: 'list',
        render: (item) => r.listView(caller.view, item),
      }),
    })),
  );
  app.get(
    `${r.path}/:id`,
    sessionRoute(world, r.scope, (request: FastifyRequest, caller) => {
      const collection = r.collection(caller.books);
      const record = findRecord(collection, (request.params as { id: string }).id, r.noun);
      return { status: 200, body: `{"data":${collection.json(record, 'one', () => r.oneView(caller.view, record))}}` };
    }),
  );
}

const contains = (haystack: string, needle: string): boolean => haystack.toLowerCase().includes(needle.toLowerCase());

export function registerReadRoutes(app: FastifyInstance, world: World): void {
  register<Customer>(app, world, {
    path: '/api/v1/customers',
    noun: 'customer',
    scope: 'customers.read',
    collection: (b) => b.customers,
    filters: [enumFilter('status', ['active', 'archived'], (c) => c.status), textFilter('search', (c, text) => contains(c.name, text))],
    listView: customerView,
    oneView: customerView,
  });
  register<Invoice>(app, world, {
    path: '/api/v1/invoices',
    noun: 'invoice',
    scope: 'invoices.read',
    collection: (b) => b.invoices,
    filters: [
      enumFilter('status', INVOICE_STATUSES, (i) => i.status),
      integerFilter('customer_id', (i) => i.customerId),
      textFilter('sales_channel', (i, text) => i.sales_channel === text),
    ],
    listView: invoiceListView,
    oneView: invoiceView,
  });
  register<Quote>(app, world, {
    path: '/api/v1/quotes',
    noun: 'quote',
    scope: 'quotes.read',
    collection: (b) => b.quotes,
    filters: [enumFilter('status', QUOTE_STATUSES, (q) => q.status)],
    listView: quoteView,
    oneView: quoteView,
  });
  register<Payment>(app, world, {
    path: '/api/v1/payments',
    noun: 'payment',
    scope: 'payments.read',
    collection: (b) => b.payments,
    filters: [integerFilter('customer_id', (p) => p.customerId)],
    listView: paymentView,
    oneView: paymentView,
  });
  register<Product>(app, world, {
    path: '/api/v1/products',
    noun: 'product',
    scope: 'products.read',
    collection: (b) => b.products,
    filters: [
      booleanFilter('active', (p) => p.is_active),
      textFilter('barcode', (p, text) => p.barcode === text),
      textFilter('sku', (p, text) => p.sku === text),
      booleanFilter('track_stock', (p) => p.track_stock),
      booleanFilter('low_stock', (p) => isLowStock(p)),
    ],
    listView: productView,
    oneView: productView,
  });
}
