// The words that steer a model are held to what they claim. Each prompt names the answer tool to call and
// how; the test follows those words literally through a real MCP client, and checks the figures against
// the test's own reading of the raw API. The list_invoices description's "unpaid" is checked the same way.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { type Connected, connectClient } from '../e2e/support/clients.js';
import { Exact } from '../support/exact.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { daysFrom, type RawBooks, readRawBooks, receivable, same, tally } from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';

const TODAY = '2027-03-15';
let sb: TestSandbox;
let books: RawBooks;
let mcp: Connected;

beforeAll(async () => {
  sb = await startTestSandbox({ today: TODAY, rateLimit: 1_000_000 });
  books = await readRawBooks(sb.baseUrl, sb.keys.live);
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret };
  mcp = await connectClient('v1', { linked: await startInProcessServer(env, { mirror: 'memory' }) });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

async function promptText(name: string, args: Record<string, string>): Promise<string> {
  const got = await (mcp.client as any).getPrompt({ name, arguments: args });
  return got.messages.map((m: Json) => m.content.text).join('\n');
}

async function call(name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await mcp.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${result.content.map((c) => c.text).join('\n')}`);
  return result.structuredContent as Json;
}

describe('list_invoices', () => {
  it('says what unpaid is, and that is what the books owe', async () => {
    const { tools } = await mcp.client.listTools();
    const description = tools.find((t) => t.name === 'list_invoices')!.description!;
    expect(description).toContain('Unpaid: any status but draft, void and paid, with balance > 0');
    expect(description).not.toMatch(/overdue, part_paid or sent/);
    const unpaid = books.invoices.filter((i) => !['draft', 'void', 'paid'].includes(i.status) && Exact.of(i.balance).greaterThan(0));
    // The old words (overdue, part_paid or sent) left out money owed under other statuses.
    expect(unpaid.some((i) => !['overdue', 'part_paid', 'sent'].includes(i.status))).toBe(true);
    const owed = await call('report_owed', {});
    const truth = tally(
      unpaid,
      (i) => i.currency,
      (i) => i.balance,
    );
    for (const c of owed.currencies) expect(same(c.balance, truth.get(c.currency)!.sum), c.currency).toBe(true);
    expect(unpaid.length).toBe(books.invoices.filter(receivable).length);
  });
});

describe('review_overdue_invoices', () => {
  it('takes past due from the due date, and the tool call it names sums exactly that', async () => {
    const text = await promptText('review_overdue_invoices', { min_days: '31' });
    expect(text).toContain('Past due means the due date is before today, whatever the status says.');
    expect(text).not.toMatch(/status[=: ]+overdue/);
    const named = /Call report_owed with over_days=(\d+)/.exec(text);
    expect(named?.[1]).toBe('30');
    const owed = await call('report_owed', { over_days: Number(named![1]) });
    const pastDue = books.invoices.filter((i) => receivable(i) && daysFrom(i.due_date, TODAY) > 30);
    const truth = tally(
      pastDue,
      (i) => i.currency,
      (i) => i.balance,
    );
    expect(owed.currencies.length).toBe(truth.size);
    for (const c of owed.currencies) {
      expect(c.count).toBe(truth.get(c.currency)!.count);
      expect(same(c.balance, truth.get(c.currency)!.sum)).toBe(true);
    }
    expect(text).toContain('Review the invoices past their due date by at least 31 days.');
    expect(await promptText('review_overdue_invoices', { min_days: '1' })).toContain('by at least 1 day.');
    // Trusting status=overdue would miss these: past due, money owed, another status.
    expect(pastDue.some((i) => i.status !== 'overdue')).toBe(true);
  });
});

describe('report_low_stock', () => {
  it("with a branch, names the tool that reads that branch's own stock", async () => {
    const branch = books.products.find((p) => p.stock?.branches?.length > 1)!.stock.branches[0];
    const text = await promptText('report_low_stock', { branch: branch.branch });
    expect(text).toContain(`Call report_low_stock with branch="${branch.branch}"`);
    const low = await call('report_low_stock', { branch: branch.branch });
    const truth = books.products.filter(
      (p) =>
        p.is_active &&
        p.track_stock &&
        p.stock?.branches.some((b: Json) => b.branch_id === branch.branch_id && !Exact.of(b.on_hand).greaterThan(p.stock.reorder_level)),
    );
    expect(low.items.map((i: Json) => i.product_id).sort((a: number, b: number) => a - b)).toEqual(
      truth.map((p) => p.id).sort((a, b) => a - b),
    );
  });
});

describe('summarise_customer', () => {
  it("names report_customer, whose open quotes are the customer's own", async () => {
    const customer = books.customers.find((c) =>
      books.quotes.some((q) => q.customer.id === c.id && ['draft', 'sent', 'viewed'].includes(q.status)),
    )!;
    const text = await promptText('summarise_customer', { customer: customer.code });
    expect(text).toContain(`Call report_customer with search="${customer.code}"`);
    expect(text).not.toMatch(/list_quotes/);
    const summary = await call('report_customer', { search: customer.code });
    const open = books.quotes
      .filter((q) => q.customer.id === customer.id && ['draft', 'sent', 'viewed'].includes(q.status))
      .map((q) => q.id);
    expect(summary.open_quotes.map((q: Json) => q.id).sort((a: number, b: number) => a - b)).toEqual(open.sort((a, b) => a - b));
  });
});

describe('draft_invoice', () => {
  it('finds the customer and the products with one find_records call', async () => {
    const customer = books.customers.find((c) => c.status === 'active')!;
    const product = books.products.find((p) => p.is_active)!;
    const text = await promptText('draft_invoice', { customer: customer.name, work: `3 x ${product.name}` });
    expect(text).toContain(`call find_records once with search: ["${customer.name}"`);
    const found = await call('find_records', { search: [customer.name, product.name] });
    expect(found.results[0].customers.map((c: Json) => c.id)).toContain(customer.id);
    expect(found.results[1].products.map((p: Json) => p.id)).toContain(product.id);
  });
});
