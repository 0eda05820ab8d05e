// The answers' inputs through a real MCP client of the built server: every refused input says what to send
// (a day that is not one, a range that ends before it starts, two ways of giving the dates, both or neither
// of customer_id and search, a bound passed); the bounds are in the schema the model reads; no schema spells
// a type as a list; ranges that contain today end today (the sandbox's today); list_invoices names subtotal and tax.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { keyEnv } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

// Mid-year, mid-quarter, mid-month: a range that ran to the end of its period would end after today.
const TODAY = '2027-05-12';

let sb: TestSandbox;
let mcp: Connected;

beforeAll(async () => {
  sb = await startTestSandbox({ today: TODAY, rateLimit: 1_000_000 });
  const key = await sb.makeKey('live');
  mcp = await connectClient('v2', { linked: await stdioHere(['--mirror', 'memory'], { ...keyEnv(sb, key), SVC_POLL_SECONDS: '0' }) });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

const refused = async (name: string, args: Record<string, unknown>): Promise<string> => {
  const result = await mcp.client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(args)).toBe(true);
  return textOf(result);
};

const answered = async (name: string, args: Record<string, unknown>): Promise<{ data: Json; text: string }> => {
  const result = await mcp.client.callTool({ name, arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  return { data: result.structuredContent, text: textOf(result) };
};

describe('dates the answers refuse, saying what to send', () => {
  it.each(['report_sales', 'report_received'])('%s refuses a day that is not one', async (tool) => {
    expect(await refused(tool, { from: '2026-02-30' })).toContain('from: 2026-02-30 is not a date: send YYYY-MM-DD, e.g. 2026-02-28');
    expect(await refused(tool, { from: '2026-01-01', to: '2026-04-31' })).toContain(
      'to: 2026-04-31 is not a date: send YYYY-MM-DD, e.g. 2026-04-30',
    );
    expect(await refused(tool, { from: '2026-2-3' })).toMatch(/from: send YYYY-MM-DD, e\.g\. 2026-02-28/);
  });

  it.each(['report_sales', 'report_received'])('%s refuses a range that ends before it starts, naming both ends', async (tool) => {
    expect(await refused(tool, { from: '2027-03-01', to: '2027-02-01' })).toContain(
      'from 2027-03-01 is after to 2027-02-01: send from on or before to, e.g. from "2027-02-01", to "2027-03-01"',
    );
    expect(await refused(tool, { from: '2027-06-01' })).toContain(`from 2027-06-01 is after today ${TODAY}`);
  });

  it.each([
    [{ range: 'this_year', days: 30 }, 'range and days both give the dates'],
    [{ range: 'last_month', from: '2027-01-01' }, 'range and from/to both give the dates'],
    [{ days: 7, to: '2027-05-01' }, 'days and from/to both give the dates'],
  ])('refuses %j rather than drop one of them', async (args, words) => {
    for (const tool of ['report_sales', 'report_received']) {
      const text = await refused(tool, args);
      expect(text).toContain(words);
      expect(text).toContain('send one of range (e.g. "this_year"), days (e.g. 30) or from/to');
    }
  });

  it('report_sales refuses bounds on the total that leave nothing between them, naming both', async () => {
    expect(await refused('report_sales', { min_total: '5000', max_total: '1000.50' })).toContain(
      'min_total 5000 is more than max_total 1000.50: send a min_total at most max_total.',
    );
    expect(await refused('report_sales', { min_total: '1,000' })).toContain('send a plain decimal, e.g. 10000 or 250.50');
  });
});

describe('ranges that contain today', () => {
  it.each([
    ['this_year', '2027-01-01', 'this year to date'],
    ['this_quarter', '2027-04-01', 'this quarter to date'],
    ['this_month', '2027-05-01', 'this month to date'],
  ])('%s runs from %s to the sandbox today, and says so', async (range, from, words) => {
    expect((await sb.clock()).today).toBe(TODAY);
    const sales = await answered('report_sales', { range });
    expect([sales.data.from, sales.data.to, sales.data.today]).toEqual([from, TODAY, TODAY]);
    expect(sales.text).toContain(`Sales issued ${from} to ${TODAY} (${words})`);
    const received = await answered('report_received', { range });
    expect([received.data.from, received.data.to]).toEqual([from, TODAY]);
    expect(received.text).toContain(`Payments dated ${from} to ${TODAY} (${words})`);
  });

  it('last_year stays whole', async () => {
    const sales = await answered('report_sales', { range: 'last_year' });
    expect([sales.data.from, sales.data.to]).toEqual(['2026-01-01', '2026-12-31']);
    expect(sales.text).toContain('2026-01-01 to 2026-12-31 (last year)');
  });
});

describe('report_customer: customer_id or search, one of them', () => {
  it('refuses both and neither, naming the two', async () => {
    for (const args of [{}, { customer_id: 1, search: 'CUS-00001' }]) {
      expect(await refused('report_customer', args)).toContain(
        'Send one of customer_id (from find_records, e.g. 12) or search (code CUS-00012, name or email)',
      );
    }
    expect(await refused('report_customer', { customer_id: 999_999 })).toContain(
      'No customer has id 999999: find the id with find_records',
    );
  });

  it('answers by id and by code alike', async () => {
    const byId = await answered('report_customer', { customer_id: 1 });
    const byCode = await answered('report_customer', { search: byId.data.customer.code });
    expect(byCode.data.customer.id).toBe(1);
    expect(byCode.data.balances).toEqual(byId.data.balances);
  });
});

describe('bounds', () => {
  it('are in the schema the model reads, and a value past one is refused naming the bound', async () => {
    const { tools } = await mcp.client.listTools();
    const input = (name: string): Record<string, Json> =>
      tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Json>;
    expect(input('report_owed').top).toMatchObject({ minimum: 1, maximum: 100 });
    expect(input('report_owed').limit).toMatchObject({ minimum: 1, maximum: 200 });
    expect(input('report_owed').over_days).toMatchObject({ minimum: 0, maximum: 3660 });
    expect(input('report_sales').limit).toMatchObject({ minimum: 1, maximum: 400 });
    expect(input('report_sales').days).toMatchObject({ minimum: 1, maximum: 3660 });
    expect(input('find_records').limit).toMatchObject({ minimum: 1, maximum: 50 });
    expect(await refused('report_owed', { top: 0 })).toMatch(/top: Too small: expected number to be >=1/);
    expect(await refused('report_owed', { limit: 201 })).toMatch(/limit: Too big: expected number to be <=200/);
  });

  it('no schema of the tools list spells a type as a list (nullable fields are anyOf with a null branch)', async () => {
    const { tools } = await mcp.client.listTools();
    const typeLists: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      if (!Array.isArray(node) && Array.isArray((node as Json).type)) typeLists.push(path);
      for (const [k, v] of Object.entries(node)) walk(v, `${path}.${k}`);
    };
    for (const t of tools) walk({ input: t.inputSchema, output: t.outputSchema }, t.name);
    expect(typeLists).toEqual([]);
    const quotes = tools.find((t) => t.name === 'report_quotes')!.outputSchema as Json;
    expect(quotes.properties.expiring).toEqual({ anyOf: [{ type: 'array' }, { type: 'null' }] });
  });
});

describe('list_invoices text', () => {
  it('carries each invoice’s subtotal and tax, as the service sent them', async () => {
    const { data, text } = await answered('list_invoices', { per_page: 10 });
    expect(data.data.length).toBeGreaterThan(0);
    for (const i of data.data) {
      expect(text).toContain(
        `#${i.id} ${i.number} ${i.status} ${i.customer.name} (customer ${i.customer.id}) subtotal ${i.currency} ${i.subtotal}, tax ${i.currency} ${i.tax_total}, total ${i.currency} ${i.total}`,
      );
    }
  });
});
