// The views as a host that renders MCP Apps finds them, and as one that does not: tools/list names each
// tool's view, resources/read of each ui:// URI (in a stateless request of its own) answers one
// self-contained page with the extension's MIME type, and the draft review's checks travel only in the
// result's _meta, leaving the text and structured content as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';

const MCP_APP_MIME = 'text/html;profile=mcp-app';
const REVIEW_KEY = 'io.github.invoicing-mcp/review';
const VIEW_OF: Record<string, string> = {
  create_draft_invoice: 'ui://invoicing/draft',
  get_invoice: 'ui://invoicing/draft',
  report_owed: 'ui://invoicing/charts',
  report_sales: 'ui://invoicing/charts',
  report_received: 'ui://invoicing/charts',
  report_low_stock: 'ui://invoicing/charts',
};

let http: HttpServer;
let c: Connected;
beforeAll(async () => {
  http = await spawnHttpServer();
  c = await connectClient('v2', { http: http.url });
});
afterAll(async () => {
  await c?.close();
  await http?.close();
});

describe('the views', () => {
  it('are named in tools/list by the tools that have one, and by no other', async () => {
    const { tools } = (await c.client.listTools()) as { tools: { name: string; _meta?: any }[] };
    const named = Object.fromEntries(tools.filter((t) => t._meta !== undefined).map((t) => [t.name, t._meta.ui?.resourceUri]));
    expect(named).toEqual(VIEW_OF);
  });

  it.each([...new Set(Object.values(VIEW_OF))])('%s reads as one self-contained page with the MCP Apps MIME type', async (uri) => {
    const { contents } = (await c.client.readResource({ uri })) as {
      contents: { uri: string; mimeType?: string; text?: string; _meta?: any }[];
    };
    expect(contents).toHaveLength(1);
    const [page] = contents as [{ uri: string; mimeType?: string; text?: string; _meta?: any }];
    expect(page).toMatchObject({ uri, mimeType: MCP_APP_MIME, _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } } });
    expect(page.text).toMatch(/^<!doctype html>/);
    // Nothing to fetch: no script, style sheet or image from an address.
    expect(page.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/i);
  });

  it('leave a draft invoice text and structured content as they were; the review is in _meta only', async () => {
    const draft = (await c.client.callTool({ name: 'list_invoices', arguments: { status: 'draft', per_page: 1 } })).structuredContent
      .data[0];
    const read: any = await c.client.callTool({ name: 'get_invoice', arguments: { id: draft.id } });
    expect(read._meta[REVIEW_KEY]).toMatchObject({ web_url: read.structuredContent.portal_url, similar_drafts: expect.any(Array) });
    expect(Object.keys(read.structuredContent)).not.toContain('review');
    expect(textOf(read)).not.toContain('overdue');
    const paid = (await c.client.callTool({ name: 'list_invoices', arguments: { status: 'paid', per_page: 1 } })).structuredContent.data[0];
    const past: any = await c.client.callTool({ name: 'get_invoice', arguments: { id: paid.id } });
    expect(past.isError, textOf(past)).toBeFalsy();
    expect(past._meta?.[REVIEW_KEY]).toBeUndefined();
  });
});
