// Resources: each record as JSON at invoicing://{kind}/{id}, the business at invoicing://business, and
// two feeds that change with events: the latest events and the products at or below their reorder level;
// and the views' ui:// pages.
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import type { ResourceKind } from '../api/schemas.js';
import { type BooksEvent, EVENTS_FEED_URI, LOW_STOCK_FEED_URI, recordUri } from '../events/event.js';
import { type Businesses, type BusinessUnit, uriIn } from './businesses.js';
import { malformedResourceUri, readingResource } from './refusals.js';
import { decimalId } from './resource-id.js';
import { viewResources } from './view-resources.js';

const KINDS: { kind: ResourceKind; noun: string; article?: string }[] = [
  { kind: 'customers', noun: 'customer' },
  { kind: 'invoices', noun: 'invoice (with lines)', article: 'An' },
  { kind: 'quotes', noun: 'quote' },
  { kind: 'payments', noun: 'payment (with allocations)' },
  { kind: 'products', noun: 'product (with stock)' },
];

const json = (uri: string, value: unknown) => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
});

const eventView = (unit: BusinessUnit, event: BooksEvent) => ({
  id: event.id,
  event: event.kind,
  created_at: event.createdAt,
  source: event.source,
  resource: uriIn(unit, recordUri(event.record.kind, event.record.id)),
  related: event.related.map((r) => uriIn(unit, recordUri(r.kind, r.id))),
  data: event.data,
});

/** A resource's name and title on a server of several: the business's name with it. */
const ofUnit = (unit: BusinessUnit, text: string): string => (unit.name === null ? text : `${unit.name}: ${text}`);

/** Puts one resource on an instance; built once per process with everything the resource needs. */
type Registration = (server: McpServer) => void;
type Metadata = { title: string; description: string; mimeType: string };

function fixedIn(unit: BusinessUnit) {
  return (name: string, uri: string, metadata: Metadata, read: (uri: URL) => Promise<ReturnType<typeof json>>): Registration =>
    (server) =>
      void server.registerResource(ofUnit(unit, name), uriIn(unit, uri), { ...metadata, title: ofUnit(unit, metadata.title) }, read);
}

function feeds(unit: BusinessUnit): Registration[] {
  const { context: ctx, events: source } = unit;
  const fixed = fixedIn(unit);
  const lowStock = fixed(
    'low-stock',
    LOW_STOCK_FEED_URI,
    {
      title: 'Products running low',
      description: 'Every tracked product at or below its reorder level, with stock per branch; subscribe to hear when it changes',
      mimeType: 'application/json',
    },
    async (uri) =>
      readingResource(uri.href, ctx.logger, async () => {
        const products = [];
        for await (const product of ctx.api.products.all({ low_stock: true })) products.push(product);
        return json(uri.href, { products });
      }),
  );
  const events = fixed(
    'events',
    EVENTS_FEED_URI,
    {
      title: 'Latest events',
      description: 'The latest events of the books, newest first (invoice sent or paid, payment recorded, quote accepted, stock low)',
      mimeType: 'application/json',
    },
    async (uri) => json(uri.href, { events: source.bus.recent().map((event) => eventView(unit, event)) }),
  );
  return [lowStock, events];
}

function records(unit: BusinessUnit): Registration[] {
  const ctx = unit.context;
  return KINDS.map(({ kind, noun, article = 'A' }) => {
    const template = new ResourceTemplate(uriIn(unit, `invoicing://${kind}/{id}`), { list: undefined });
    const title = ofUnit(unit, `${article} ${noun.split(' ')[0]}`);
    const metadata = { title, description: `One ${noun} as JSON`, mimeType: 'application/json' };
    const read = async (uri: URL, { id }: Record<string, string | string[]>) =>
      readingResource(uri.href, ctx.logger, async () => {
        const n = decimalId(Array.isArray(id) ? id[0] : id);
        if (!Number.isSafeInteger(n) || n < 1)
          throw malformedResourceUri(uri.href, 'the id must be a positive whole number, as in invoicing://invoices/12');
        return json(uri.href, await ctx.api[kind].get(n));
      });
    return (server: McpServer) => void server.registerResource(ofUnit(unit, kind), template, metadata, read);
  });
}

const business = (unit: BusinessUnit): Registration =>
  fixedIn(unit)(
    'business',
    'invoicing://business',
    {
      title: 'The business',
      description: "The business these keys belong to, the mode and the key's scopes",
      mimeType: 'application/json',
    },
    async (uri) =>
      readingResource(uri.href, unit.context.logger, async () => {
        const session = await unit.context.api.session();
        return json(uri.href, { business: session.business, mode: session.mode, key_id: session.keyId, scopes: session.scopes });
      }),
  );

/**
 * Puts the resources on server instances. The templates and readers are built once, on the first
 * instance, and shared: none holds anything of the instance or the request.
 */
export function resourceRegistrar(businesses: Businesses): Registration {
  let registrations: Registration[] | null = null;
  return (server) => {
    // The feeds go before the templates, so that products/low-stock is not read as a product id.
    registrations ??= [...businesses.units.flatMap((unit) => [...feeds(unit), ...records(unit), business(unit)]), ...viewResources()];
    for (const register of registrations) register(server);
  };
}
