// Resources: each record as JSON at invoicing://{kind}/{id}, the business at invoicing://business, and
// two feeds that change with events: the latest events and the products at or below their reorder level;
// and the views' ui:// pages.
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { ResourceKind } from '../api/schemas.js';
import type { EventBus } from '../events/bus.js';
import { type BooksEvent, EVENTS_FEED_URI, LOW_STOCK_FEED_URI, recordUri } from '../events/event.js';
import type { ViewName } from '../views/catalog.js';
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

const eventView = (event: BooksEvent) => ({
  id: event.id,
  event: event.kind,
  created_at: event.createdAt,
  source: event.source,
  resource: recordUri(event.record.kind, event.record.id),
  related: event.related.map((r) => recordUri(r.kind, r.id)),
  data: event.data,
});

/** Puts one resource on an instance; built once per process with everything the resource needs. */
type Registration = (server: McpServer) => void;
/** A resource and the tools whose reads it makes (select-tools.ts `reachedBy`). */
type Offered = ThroughTools & { register: Registration };
type Metadata = { title: string; description: string; mimeType: string };

function fixed(
  name: string,
  uri: string,
  metadata: Metadata,
  read: (uri: URL) => Promise<ReturnType<typeof json>>,
  tools: readonly string[] = [],
): Offered {
  return { tools, register: (server) => void server.registerResource(name, uri, metadata, read) };
}

function feeds(ctx: ToolContext, bus: EventBus): Offered[] {
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
    async (uri) => json(uri.href, { events: bus.recent().map(eventView) }),
  );
  return [lowStock, events];
}

function records(ctx: ToolContext): Offered[] {
  return KINDS.map(({ kind, noun, article = 'A', tool }) => {
    const template = new ResourceTemplate(`invoicing://${kind}/{id}`, { list: undefined });
    const metadata = { title: `${article} ${noun.split(' ')[0]}`, description: `One ${noun} as JSON`, mimeType: 'application/json' };
    const read = async (uri: URL, { id }: Record<string, string | string[]>) =>
      readingResource(uri.href, ctx.logger, async () => {
        const n = decimalId(Array.isArray(id) ? id[0] : id);
        if (!Number.isSafeInteger(n) || n < 1)
          throw malformedResourceUri(uri.href, 'the id must be a positive whole number, as in invoicing://invoices/12');
        return json(uri.href, await ctx.api[kind].get(n));
      });
    return { tools: [tool], register: (server: McpServer) => void server.registerResource(kind, template, metadata, read) };
  });
}

const business = (ctx: ToolContext): Offered =>
  fixed(
    'business',
    'invoicing://business',
    {
      title: 'The business',
      description: "The business these keys belong to, the mode and the key's scopes",
      mimeType: 'application/json',
    },
    async (uri) =>
      readingResource(uri.href, ctx.logger, async () => {
        const session = await ctx.api.session();
        return json(uri.href, { business: session.business, mode: session.mode, key_id: session.keyId, scopes: session.scopes });
      }),
  );

/**
 * Puts on server instances the resources the `shown` tools reach and the `views` they name. The templates
 * and readers are built once, on the first instance, and shared: none holds anything of the instance or
 * the request.
 */
export function resourceRegistrar(
  ctx: ToolContext,
  bus: EventBus,
  shown: readonly { name: string }[],
  views: ReadonlySet<ViewName>,
): Registration {
  let registrations: Registration[] | null = null;
  return (server) => {
    // The feeds go before the templates, so that products/low-stock is not read as a product id.
    registrations ??= [
      ...reachedBy([...feeds(ctx, bus), ...records(ctx), business(ctx)], shown).map((offered) => offered.register),
      ...viewResources(views),
    ];
    for (const register of registrations) register(server);
  };
}
