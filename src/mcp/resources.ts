// Resources: each record as JSON at invoicing://{kind}/{id}, the business at invoicing://business, and
// two feeds that change with events: the latest events and the products at or below their reorder level;
// and the views' ui:// pages.
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import type { ResourceKind } from '../api/schemas.js';
import { type BooksEvent, EVENTS_FEED_URI, LOW_STOCK_FEED_URI, recordUri } from '../events/event.js';
import type { ViewName } from '../views/catalog.js';
import { type Businesses, type BusinessUnit, uriIn } from './businesses.js';
import { malformedResourceUri, readingResource } from './refusals.js';
import { decimalId } from './resource-id.js';
import { reachedBy, type ThroughTools } from './select-tools.js';
import { viewResources } from './view-resources.js';

/** Each kind's template reads what its `get_` tool does, and is offered while that tool is. */
const KINDS: { kind: ResourceKind; noun: string; article?: string; tool: string }[] = [
  { kind: 'customers', noun: 'customer', tool: 'get_customer' },
  { kind: 'invoices', noun: 'invoice (with lines)', article: 'An', tool: 'get_invoice' },
  { kind: 'quotes', noun: 'quote', tool: 'get_quote' },
  { kind: 'payments', noun: 'payment (with allocations)', tool: 'get_payment' },
  { kind: 'products', noun: 'product (with stock)', tool: 'get_product' },
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
/** A resource and the tools whose reads it makes (select-tools.ts `reachedBy`). */
type Offered = ThroughTools & { register: Registration };
type Metadata = { title: string; description: string; mimeType: string };

function fixedIn(unit: BusinessUnit) {
  return (
    name: string,
    uri: string,
    metadata: Metadata,
    read: (uri: URL) => Promise<ReturnType<typeof json>>,
    tools: readonly string[] = [],
  ): Offered => ({
    tools,
    register: (server) =>
      void server.registerResource(ofUnit(unit, name), uriIn(unit, uri), { ...metadata, title: ofUnit(unit, metadata.title) }, read),
  });
}

function feeds(unit: BusinessUnit): Offered[] {
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
    ['list_products'],
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

function records(unit: BusinessUnit): Offered[] {
  const ctx = unit.context;
  return KINDS.map(({ kind, noun, article = 'A', tool }) => {
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
    return { tools: [tool], register: (server: McpServer) => void server.registerResource(ofUnit(unit, kind), template, metadata, read) };
  });
}

const business = (unit: BusinessUnit): Offered =>
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
 * Puts on server instances the resources the `shown` tools reach and the `views` they name, for every
 * business. The templates and readers are built once, on the first instance, and shared: none holds anything
 * of the instance or the request.
 */
export function resourceRegistrar(businesses: Businesses, shown: readonly { name: string }[], views: ReadonlySet<ViewName>): Registration {
  let registrations: Registration[] | null = null;
  return (server) => {
    // The feeds go before the templates, so that products/low-stock is not read as a product id.
    const offered = businesses.units.flatMap((unit) => [...feeds(unit), ...records(unit), business(unit)]);
    registrations ??= [...reachedBy(offered, shown).map((o) => o.register), ...viewResources(views)];
    for (const register of registrations) register(server);
  };
}
