// The views in a real Chromium, through a host built on the extension's AppBridge, fed by real tool
// results (the built server on a sandbox, through the SDK's client): the figures on screen are the
// result's own strings, the draft shows every line and total and what to check (worked out here from the
// sandbox's raw API), the page makes no request, logs no error, and axe-core finds nothing serious, in
// light and dark. With VIEW_SCREENSHOTS=1, screenshots of each view land in test/screenshots/ (git-ignored;
// `npm run screenshots:readme` takes them and copies the README's two into docs/images/): a dozen PNGs are
// about a second of CPU that no assertion needs.
import { mkdirSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cents, get, listAll, type Session, signIn } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { keyEnv } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';
import {
  aboutTime,
  draftTables,
  lowStockTables,
  owedTables,
  plural,
  receivedTables,
  salesTables,
  type TableText,
} from './views/expected.js';
import { type Harness, startHarness, type Theme } from './views/harness.js';

const SHOTS = process.env.VIEW_SCREENSHOTS ? new URL('../screenshots/', import.meta.url).pathname : null;
/** What a dark theme changes: colours. The rest of axe-core's rules see the same document in either theme. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

let sandbox: TestSandbox;
let mcp: Connected;
let raw: Session;
let host: Harness;
const pages = new Map<string, string>();

beforeAll(async () => {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  sandbox = await startTestSandbox();
  [mcp, raw, host] = await Promise.all([
    connectClient('v2', { linked: await stdioHere([], keyEnv(sandbox, sandbox.keys.live)) }, { apps: true }),
    signIn(sandbox.baseUrl, sandbox.keys.live),
    startHarness(),
  ]);
  const { tools } = (await mcp.client.listTools()) as { tools: { name: string; _meta?: any }[] };
  for (const tool of tools) {
    const uri = tool._meta?.ui?.resourceUri;
    if (uri && !pages.has(uri)) pages.set(uri, (await mcp.client.readResource({ uri })).contents[0]?.text ?? '');
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([host?.close(), mcp?.close()]);
  await sandbox?.close();
});

afterEach(() => {
  expect(host.errors).toEqual([]);
  expect(host.strayRequests).toEqual([]);
});

async function call(name: string, args: Record<string, unknown>): Promise<any> {
  const result = await mcp.client.callTool({ name, arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  return result;
}

async function viewOf(name: string): Promise<string> {
  const { tools } = (await mcp.client.listTools()) as { tools: { name: string; _meta?: any }[] };
  const html = pages.get(tools.find((t) => t.name === name)?._meta?.ui?.resourceUri);
  if (!html) throw new Error(`${name} names no view`);
  return html;
}

const tablesOf = (frame: Frame): Promise<TableText[]> =>
  frame.evaluate(() =>
    [...document.querySelectorAll('table')].map((t) => ({
      caption: t.caption?.textContent ?? '',
      rows: [...(t.tBodies[0]?.rows ?? [])].map((r) => [...r.cells].map((c) => c.textContent ?? '')),
      foot: [...(t.tFoot?.rows ?? [])].map((r) => [...r.cells].map((c) => c.textContent ?? '')),
    })),
  );

/** Shows the result in light, checks its tables and accessibility, then its colours in dark; a screenshot of each if asked. */
async function showBoth(shot: string, name: string, args: Record<string, unknown>, result: any, expected: TableText[]): Promise<Frame> {
  const frame = await host.show(await viewOf(name), 'light', args, result);
  expect(await tablesOf(frame)).toEqual(expected);
  for (const theme of ['light', 'dark'] as Theme[]) {
    if (theme === 'dark') await host.setTheme(frame, theme);
    expect(await host.axeViolations(frame, theme === 'dark' ? COLOUR_RULES : undefined), theme).toEqual([]);
    if (SHOTS) await host.screenshot(`${SHOTS}${shot}-${theme}.png`);
  }
  return frame;
}

/** The exact sum of decimal strings of two places, as the service writes money. */
function money(amounts: string[]): string {
  const total = amounts.reduce((sum, a) => sum + cents(a), 0n);
  return `${total / 100n}.${String(total % 100n).padStart(2, '0')}`;
}

describe('the draft review', () => {
  it('shows every line and total, what to check, and opens the invoice through the host', async () => {
    // A customer with money overdue, and a product priced away from its default on the first line.
    const overdue = (await listAll(raw, '/api/v1/invoices?status=overdue'))[0];
    const customerId: number = overdue.customer.id;
    const product = (await listAll(raw, '/api/v1/products?active=true')).find((p: any) => cents(p.default_price) > 100n);
    const unitPrice = `${cents(product.default_price) / 100n - 1n}.00`;
    const draft = {
      customer_id: customerId,
      items: [
        { product_id: product.id, unit_price: unitPrice, quantity: '2.5' },
        { description: 'Call-out', unit_price: '45.00', quantity: 1 },
      ],
    };
    const first = await call('create_draft_invoice', { ...draft, idempotency_key: 'views-draft-1' });
    const args = { ...draft, idempotency_key: 'views-draft-2' };
    const second = await call('create_draft_invoice', args);
    const inv = second.structuredContent;

    const frame = await showBoth('draft-review', 'create_draft_invoice', args, second, draftTables(inv));
    const late = (await listAll(raw, `/api/v1/invoices?customer_id=${customerId}`)).filter(
      (i: any) => (i.status === 'overdue' || (i.status === 'part_paid' && i.due_date < sandbox.today)) && cents(i.balance) > 0n,
    );
    const own = (await get(raw, `/api/v1/products/${product.id}`)).body.data;
    const checks = await frame.locator('.checks li').allTextContents();
    expect(checks).toEqual([
      `Line 1, ${own.name}: unit price ${inv.items[0].unit_price}, the product's default is ${own.default_price}.`,
      `${inv.customer.name} already has NZD ${money(late.map((i: any) => i.balance))} overdue on ${plural(late.length, 'invoice')}.`,
      `Draft ${first.structuredContent.number} for the same customer was made within a day (${first.structuredContent.created_at}), ` +
        `total NZD ${first.structuredContent.total}: the same total.`,
    ]);
    expect(await frame.locator('header h1').textContent()).toBe(`Draft invoice ${inv.number} draft`);

    await frame.getByRole('link', { name: 'Open the invoice at the service' }).click();
    await expect.poll(() => host.opened()).toEqual([inv.portal_url]);
  });

  it('is the view of get_invoice too, for a draft read back', async () => {
    const { data } = (await get(raw, '/api/v1/invoices?status=draft&per_page=1')).body;
    const args = { id: data[0].id };
    const result = await call('get_invoice', args);
    const frame = await host.show(await viewOf('get_invoice'), 'light', args, result);
    expect(await tablesOf(frame)).toEqual(draftTables(result.structuredContent));
    expect(await host.axeViolations(frame)).toEqual([]);
  });
});

describe('the report charts', () => {
  it('report_owed: ageing bars per currency and the top customers', async () => {
    const result = await call('report_owed', {});
    expect(result.structuredContent.currencies.length).toBeGreaterThan(1);
    await showBoth('report-owed', 'report_owed', {}, result, owedTables(result.structuredContent));
  });

  it('report_sales: sales over time, by month', async () => {
    const args = { days: 180, group_by: 'month' };
    const result = await call('report_sales', args);
    expect(result.structuredContent.groups.length).toBeGreaterThan(3);
    await showBoth('report-sales', 'report_sales', args, result, salesTables(result.structuredContent, 'month'));
  });

  it('report_received: money in by method', async () => {
    const args = { days: 90, group_by: 'method' };
    const result = await call('report_received', args);
    expect(result.structuredContent.groups.length).toBeGreaterThan(1);
    await showBoth('report-received', 'report_received', args, result, receivedTables(result.structuredContent, 'method'));
  });

  it('report_low_stock: on hand against reorder level per branch', async () => {
    const result = await call('report_low_stock', {});
    expect(result.structuredContent.items.length).toBeGreaterThan(0);
    await showBoth('report-low-stock', 'report_low_stock', {}, result, lowStockTables(result.structuredContent));
  });
});

describe('figures that are not whole', () => {
  it('report_sales by product on a cold mirror: a notice before any figure says what is missing and when it will be whole', async () => {
    // A server of its own, on a key of its own (the sandbox's 120 calls a minute): its mirror holds no
    // invoice's lines, and a year's are too many to read while the call waits, so the answer is PARTIAL.
    const cold = await connectClient('v2', { linked: await stdioHere([], keyEnv(sandbox, await sandbox.makeKey('live'))) }, { apps: true });
    const yearByProduct = async (): Promise<any> => {
      const result = await cold.client.callTool({ name: 'report_sales', arguments: args });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toContain('PARTIAL');
      return result;
    };
    const args = { range: 'this_year', group_by: 'product' };
    try {
      // First no lines at all: no product figure to draw, and the page says why.
      const none = await yearByProduct();
      const invoices = none.structuredContent.lines.invoices;
      expect(none.structuredContent.lines.with_lines).toBe(0);
      let frame = await host.show(await viewOf('report_sales'), 'light', args, none);
      expect((await frame.getByRole('alert').locator('p').allTextContents())[0]).toBe(
        `No sales by product can be shown yet: the lines of the ${invoices} invoices in this range are not in the books mirror yet. ` +
          `The totals per currency cover all ${invoices} invoices.`,
      );

      // A week's lines fit the wait: read in the call. The year then has the lines of some of its invoices.
      await cold.client.callTool({ name: 'report_sales', arguments: { days: 7, group_by: 'product' } });
      const result = await yearByProduct();
      const a = result.structuredContent;
      const withLines = a.lines.with_lines;
      expect(withLines).toBeGreaterThan(0);
      expect(withLines).toBeLessThan(invoices);
      expect(a.lines.invoices).toBe(invoices);
      expect(a.lines_pending.invoices).toBe(invoices - withLines);
      expect(a.groups.length).toBeGreaterThan(0);

      frame = await showBoth('report-sales-partial', 'report_sales', args, result, salesTables(a, 'product'));
      const notice = frame.getByRole('alert');
      const when =
        a.lines_pending.seconds === null
          ? 'how long that takes is not known yet'
          : `the figures will be whole in ${aboutTime(a.lines_pending.seconds)}`;
      expect(await notice.locator('h2').allTextContents()).toEqual([
        `Partial figures: sales by product from ${withLines} of ${invoices} invoices`,
      ]);
      expect(await notice.locator('p').allTextContents()).toEqual([
        `The bars and the table by product sum the lines of only ${withLines} of the ${invoices} invoices in this range: ` +
          `the lines of the other ${invoices - withLines} are not in the books mirror yet. ` +
          `The totals per currency cover all ${invoices} invoices.`,
        `The missing lines are being read now; ${when}. Ask again then for whole figures.`,
      ]);
      // Read first: the notice comes before every figure on the page.
      expect(
        await frame.evaluate(() => {
          const alert = document.querySelector('[role="alert"]') as Element;
          const first = document.querySelector('table, canvas') as Element;
          return Boolean(alert.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING);
        }),
      ).toBe(true);

      // A host that lets the page call the tool: the page asks again on its own, after a quarter of the time
      // the rest should take (from 5 s to a minute; the page's clock is the test's), and draws the newer
      // answer, each time with the lines read so far, until the figures are whole.
      const calls: unknown[] = [];
      let newer: any = null;
      const asked = await host.showCalling(await viewOf('report_sales'), 'light', args, result, 'report_sales', async (params) => {
        calls.push(params);
        newer = await cold.client.callTool(params);
        return newer;
      });
      const seconds = a.lines_pending.seconds;
      const waitMs = seconds === null ? 15_000 : Math.min(60_000, Math.max(5_000, Math.round((seconds * 1000) / 4)));
      expect(await asked.locator('p.again').allTextContents()).toEqual([
        `This page asks again in ${Math.round(waitMs / 1000)} seconds and shows the figures as their lines come in.`,
      ]);
      for (const theme of ['light', 'dark'] as Theme[]) {
        if (theme === 'dark') await host.setTheme(asked, theme);
        expect(await host.axeViolations(asked, theme === 'dark' ? COLOUR_RULES : undefined), theme).toEqual([]);
      }
      expect(calls).toEqual([]);
      await host.advanceClock(waitMs);
      await host.redrawn(asked, 'dark', async () => newer !== null);
      expect(calls).toEqual([expect.objectContaining({ name: 'report_sales', arguments: args })]);
      const later = newer.structuredContent;
      expect(later.lines.with_lines).toBeGreaterThanOrEqual(withLines);
      expect(await asked.getByRole('alert').locator('h2').allTextContents()).toEqual([
        `Partial figures: sales by product from ${later.lines.with_lines} of ${invoices} invoices`,
      ]);
      expect(await tablesOf(asked)).toEqual(salesTables(later, 'product'));
      // Whole figures: no notice, and the page asks no more.
      const whole = await call('report_sales', { days: 7, group_by: 'product' });
      expect(whole.structuredContent.lines.with_lines).toBe(whole.structuredContent.lines.invoices);
      await host.sendResult(asked, 'dark', whole);
      expect(await asked.locator('p.again').count()).toBe(0);
      expect(await asked.getByRole('alert').count()).toBe(0);
      await host.advanceClock(60_000);
      expect(calls).toHaveLength(1);
    } finally {
      await cold.close();
    }
  });

  it('report_sales by customer past its limit: the page says how many groups are left out of the bars and tables', async () => {
    const args = { days: 365, group_by: 'customer', limit: 3 };
    const result = await call('report_sales', args);
    const a = result.structuredContent;
    expect(a.groups_left_out).toBeGreaterThan(0);
    // The text counts in English: "AUD 1 invoice", not "1 invoices" (the sample books hold groups of one).
    const text = textOf(result);
    expect(a.groups.some((g: any) => g.count === 1)).toBe(true);
    for (const f of [...a.totals.map((t: any) => ['Total', t]), ...a.groups.map((g: any) => [`(customer ${g.key})`, g])])
      expect(text).toContain(`${f[0]}: ${f[1].currency} ${plural(f[1].count, 'invoice')}, subtotal ${f[1].subtotal},`);
    const frame = await showBoth('report-sales-left-out', 'report_sales', args, result, salesTables(a, 'customer'));
    const shown = a.groups.length;
    expect(await frame.getByRole('note').allTextContents()).toEqual([
      `Only ${shown} of ${shown + a.groups_left_out} customers are shown below (the top 3 per currency); ` +
        `the other ${a.groups_left_out} are left out of the bars and tables, and counted in the totals per currency above.`,
    ]);
  });
});

describe('an answer whose books could not be brought up to date', () => {
  it('says so under the title, announced, before any figure', async () => {
    // A real result, with the warning the mirror adds when a read fails (books-store-damage makes one for real;
    // here only the page's words are at stake).
    const args = { days: 30 };
    const result = await call('report_sales', args);
    const warning = `The service did not answer: the mirror is not being updated, so this answer is as of ${result.structuredContent.as_of}`;
    const warned = { ...result, structuredContent: { ...result.structuredContent, warning } };
    const frame = await host.show(await viewOf('report_sales'), 'light', args, warned);
    expect(await frame.getByRole('alert').allTextContents()).toEqual([`Not up to date: ${warning}.`]);
    expect(await frame.evaluate(() => document.querySelector('h1')?.nextElementSibling?.getAttribute('role'))).toBe('alert');
    expect(await host.axeViolations(frame)).toEqual([]);
  });
});

describe('an answer that comes later', () => {
  it('the page says it waits until the result comes, then draws it; a cancelled call is said so', async () => {
    const args = { days: 180, group_by: 'month' };
    const result = await call('report_sales', args);
    const html = await viewOf('report_sales');
    const waiting = await host.showWaiting(html, 'light', args);
    expect(await waiting.getByRole('status').allTextContents()).toEqual(['Waiting for the answer: it appears here when the tool is done.']);
    expect(await host.axeViolations(waiting)).toEqual([]);
    await host.setTheme(waiting, 'dark');
    expect(await host.axeViolations(waiting, COLOUR_RULES)).toEqual([]);
    await host.sendResult(waiting, 'dark', result);
    expect(await tablesOf(waiting)).toEqual(salesTables(result.structuredContent, 'month'));
    expect(await waiting.getByRole('status').count()).toBe(0);

    const cancelled = await host.showWaiting(html, 'light', args);
    await host.cancel(cancelled, 'light', 'user action');
    expect(await cancelled.getByRole('status').allTextContents()).toEqual([
      'The call was cancelled (user action): there is no answer to show.',
    ]);
    expect(await tablesOf(cancelled)).toEqual([]);
  });
});
