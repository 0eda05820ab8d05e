// Resources (a record by URI, the business, the views' ui:// pages) and prompts (listed, got, with the
// customer argument completed from the books), through both clients on the embedded sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, type Sdk, type Via } from './support/clients.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

let http: HttpServer;
beforeAll(async () => {
  http = await spawnHttpServer();
});
afterAll(() => http?.close());

const KINDS = ['customers', 'invoices', 'quotes', 'payments', 'products'];
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
const PROMPTS = ['draft_invoice', 'report_low_stock', 'review_overdue_invoices', 'summarise_customer'];

const cases: { sdk: Sdk; via: 'stdio' | 'http' }[] = [
  { sdk: 'v2', via: 'http' },
  { sdk: 'v1', via: 'stdio' },
];

describe.each(cases)('the $sdk client over $via', ({ sdk, via }) => {
  let c: Connected;
  beforeAll(async () => {
    // Over stdio, the built server inside the worker on a pair of streams: the spawned process is mcp-tools.test.ts's.
    const where: Via = via === 'stdio' ? { linked: await stdioHere() } : { http: http.url };
    c = await connectClient(sdk, where);
  });
  afterAll(() => c?.close());

  const readJson = async (uri: string): Promise<any> => {
    const { contents } = await c.client.readResource({ uri });
    expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    return JSON.parse(contents[0]?.text ?? '');
  };

  it('lists a template for each kind of record and the business resource', async () => {
    const { resourceTemplates } = await c.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(KINDS.map((k) => `invoicing://${k}/{id}`).sort());
    const { resources } = await c.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      'invoicing://business',
      'invoicing://events',
      'invoicing://products/low-stock',
      'ui://invoicing/charts',
      'ui://invoicing/draft',
    ]);
  });

  it('reads the low-stock feed as the products at or below their reorder level', async () => {
    const { products } = await readJson('invoicing://products/low-stock');
    expect(products.length).toBeGreaterThan(0);
    for (const p of products) expect(p.stock?.low, p.name).toBe(true);
  });

  it('reads one record of each kind as JSON', async () => {
    for (const kind of KINDS) expect(await readJson(`invoicing://${kind}/1`), kind).toMatchObject({ id: 1 });
    const invoice = await readJson('invoicing://invoices/1');
    expect(invoice.items.length).toBeGreaterThan(0);
    expect(invoice.total).toMatch(/^\d+\.\d{2}$/);
  });

  it('reads the business, the mode and the scopes', async () => {
    const business = await readJson('invoicing://business');
    expect(business).toMatchObject({ mode: 'test', business: { id: 1 } });
    expect(business.scopes).toContain('invoices.write');
  });

  it('refuses a record that is not there', async () => {
    await expect(c.client.readResource({ uri: 'invoicing://customers/987654' })).rejects.toThrow(/987654/);
  });

  it("names each tool's view (MCP Apps) in tools/list, and no view for the other tools", async () => {
    const { tools } = (await c.client.listTools()) as { tools: { name: string; _meta?: any }[] };
    const named = Object.fromEntries(tools.filter((t) => t._meta !== undefined).map((t) => [t.name, t._meta.ui?.resourceUri]));
    expect(named).toEqual(VIEW_OF);
  });

  it('reads each view as one self-contained page with the MCP Apps MIME type', async () => {
    for (const uri of new Set(Object.values(VIEW_OF))) {
      const { contents } = (await c.client.readResource({ uri })) as {
        contents: { uri: string; mimeType?: string; text?: string; _meta?: any }[];
      };
      expect(contents, uri).toHaveLength(1);
      expect(contents[0], uri).toMatchObject({
        uri,
        mimeType: MCP_APP_MIME,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } },
      });
      expect(contents[0]?.text, uri).toMatch(/^<!doctype html>/);
      // Nothing to fetch: no script, style sheet or image from an address.
      expect(contents[0]?.text, uri).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/i);
    }
  });

  it('works out the draft review only for a client that shows views, and puts it in _meta only', async () => {
    // Two clients of this SDK on one server (HTTP: a 2025-era session for v1, per request for v2), one of
    // them declaring MCP Apps.
    const [other, apps] = await Promise.all([
      connectClient(sdk, { http: http.url }),
      connectClient(sdk, { http: http.url }, { apps: true }),
    ]);
    try {
      const list = async (status: string) =>
        (await other.client.callTool({ name: 'list_invoices', arguments: { status, per_page: 1 } })).structuredContent.data[0];
      const draft = { name: 'get_invoice', arguments: { id: (await list('draft')).id } };
      const [plain, shown]: any[] = await Promise.all([other.client.callTool(draft), apps.client.callTool(draft)]);
      expect(plain._meta?.[REVIEW_KEY]).toBeUndefined();
      expect(shown._meta?.[REVIEW_KEY]).toMatchObject({ web_url: plain.structuredContent.portal_url, similar_drafts: expect.any(Array) });
      expect([shown.content, shown.structuredContent]).toEqual([plain.content, plain.structuredContent]);
      const past: any = await apps.client.callTool({ name: 'get_invoice', arguments: { id: (await list('paid')).id } });
      expect(past.isError).toBeFalsy();
      expect(past._meta?.[REVIEW_KEY]).toBeUndefined();
    } finally {
      await Promise.all([other.close(), apps.close()]);
    }
  });

  it('lists the prompts with their arguments', async () => {
    const { prompts } = await c.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(PROMPTS);
    const draft = prompts.find((p) => p.name === 'draft_invoice');
    expect(draft?.arguments?.map((a) => [a.name, a.required])).toEqual([
      ['customer', true],
      ['work', true],
    ]);
  });

  it('gets a prompt with its arguments filled in', async () => {
    const { messages } = await c.client.getPrompt({
      name: 'draft_invoice',
      arguments: { customer: 'Rangitoto Builders Co', work: '3 hours of labour' },
    });
    expect(messages).toHaveLength(1);
    expect(messages[0]?.role).toBe('user');
    expect(messages[0]?.content.text).toContain('Draft an invoice for the customer "Rangitoto Builders Co"');
    expect(messages[0]?.content.text).toContain('3 hours of labour');
  });

  it('refuses a prompt argument that does not fit, naming it', async () => {
    await expect(c.client.getPrompt({ name: 'review_overdue_invoices', arguments: { min_days: 'ten' } })).rejects.toThrow(
      /min_days: a whole number of days/,
    );
  });

  it('completes the customer argument from the books', async () => {
    for (const name of ['draft_invoice', 'summarise_customer']) {
      const { completion } = await c.client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: 'customer', value: 'Rang' } });
      expect(completion.values, name).toContain('Rangitoto Builders Co');
      expect(
        completion.values.every((v) => /rang/i.test(v)),
        name,
      ).toBe(true);
    }
  });
});
