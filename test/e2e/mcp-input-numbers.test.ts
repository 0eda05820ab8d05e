// Amounts the model may send as JSON numbers: `unit_price: 95` is taken exactly as the decimal "95" (as
// `quantity: 3` always was), checked against the invoice the sandbox's raw API holds, with the test's own
// arithmetic; a number that cannot be carried exactly is refused, saying why and to send a string. The
// advertised page and per_page say their minimum.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactDecimal } from '../../tools/params.js';
import { authHeaders, send, signIn } from '../contract/sandbox-http.js';
import { Exact } from '../support/exact.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { keyEnv } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

let sb: TestSandbox;
let mcp: Connected;
beforeAll(async () => {
  sb = await startTestSandbox();
  mcp = await connectClient('v2', { linked: await stdioHere([], keyEnv(sb, sb.keys.live)) });
});
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

const draft = (items: Record<string, unknown>[]) =>
  mcp.client.callTool({ name: 'create_draft_invoice', arguments: { customer_id: 1, items } });

describe('unit_price as a JSON number', () => {
  it('95 and 0.1 are taken exactly; the books hold the prices and the subtotal the test works out', async () => {
    const result = await draft([
      { description: 'Labour', quantity: 3, unit_price: 95 },
      { description: 'Washers', quantity: 7, unit_price: 0.1 },
      { description: 'Fitting', quantity: '1.5', unit_price: '12.3456' },
    ]);
    expect(result.isError, textOf(result)).toBeFalsy();
    const id = result.structuredContent.id as number;
    const session = await signIn(sb.baseUrl, sb.keys.live);
    const raw = await send('GET', `${sb.baseUrl}/api/v1/invoices/${id}`, { headers: authHeaders(session) });
    expect(raw.status).toBe(200);
    const invoice = raw.body.data ?? raw.body;
    const prices = invoice.items.map((l: { unit_price: string }) => Exact.of(l.unit_price).toString());
    expect(prices).toEqual(['95', '0.1', '12.3456']);
    const lineTotals = [Exact.of(3).times('95'), Exact.of(7).times('0.1'), Exact.of('1.5').times('12.3456')].map((d) => d.roundHalfUp(2));
    const subtotal = lineTotals.reduce((a, b) => a.plus(b), Exact.of(0));
    expect(invoice.subtotal).toBe(subtotal.toFixed(2));
  });

  it.each([
    [19.99999, 'more than 4 decimals'],
    // biome-ignore lint/correctness/noPrecisionLoss: the point of the case is a number JSON cannot carry exactly
    [12345678901234567, 'more digits than a JSON number carries exactly'],
    [-5, 'negative'],
  ])('%s is refused: %s, send a decimal string', async (price, why) => {
    const result = await draft([{ description: 'Labour', quantity: 1, unit_price: price }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('unit_price');
    expect(textOf(result)).toContain(why);
    expect(textOf(result)).toContain('decimal string');
  });

  it('exactDecimal gives the written decimal, or null when it cannot be known', () => {
    expect([95, 0.1, 19.95, 1234.5678, 0.3].map(exactDecimal)).toEqual(['95', '0.1', '19.95', '1234.5678', '0.3']);
    expect([0.1 + 0.2, 1e21, 2 ** 60, Number.NaN, -1].map(exactDecimal)).toEqual([null, null, null, null, null]);
  });
});

describe('the advertised paging', () => {
  it('gives page and per_page a minimum of 1', async () => {
    const { tools } = await mcp.client.listTools();
    const lists = (tools as { name: string; inputSchema: { properties: Record<string, { minimum?: number; maximum?: number }> } }[]).filter(
      (t) => t.name.startsWith('list_'),
    );
    expect(lists.length).toBeGreaterThan(3);
    for (const t of lists) {
      expect(t.inputSchema.properties.page?.minimum, t.name).toBe(1);
      expect(t.inputSchema.properties.per_page).toMatchObject({ minimum: 1, maximum: 100 });
    }
  });
});
