// Resources: each record as JSON at invoicing://{kind}/{id}, and the business at invoicing://business.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { ResourceKind } from '../api/schemas.js';

const KINDS: { kind: ResourceKind; noun: string }[] = [
  { kind: 'customers', noun: 'customer' },
  { kind: 'invoices', noun: 'invoice (with lines)' },
  { kind: 'quotes', noun: 'quote' },
  { kind: 'payments', noun: 'payment (with allocations)' },
  { kind: 'products', noun: 'product (with stock)' },
];

const json = (uri: string, value: unknown) => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
});

export function registerResources(server: McpServer, ctx: ToolContext): void {
  for (const { kind, noun } of KINDS) {
    server.registerResource(
      kind,
      new ResourceTemplate(`invoicing://${kind}/{id}`, { list: undefined }),
      { title: `A ${noun.split(' ')[0]}`, description: `One ${noun} as JSON`, mimeType: 'application/json' },
      async (uri, { id }) => {
        const n = Number(Array.isArray(id) ? id[0] : id);
        if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${uri.href}: the id must be a positive whole number`);
        return json(uri.href, await ctx.api[kind].get(n));
      },
    );
  }
  server.registerResource(
    'business',
    'invoicing://business',
    { title: 'The business', description: 'The business these keys belong to, the mode and the key\'s scopes', mimeType: 'application/json' },
    async (uri) => {
      const session = await ctx.api.session();
      return json(uri.href, { business: session.business, mode: session.mode, key_id: session.keyId, scopes: session.scopes });
    },
  );
}
