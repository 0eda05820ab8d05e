// The two ways a figure is summed, on amounts whose sums pass 20 significant digits: SQLite adds whole units
// in 64 bits and the answer adds the groups (one per number of places) exactly; a sum that would pass 64 bits
// makes SQLite stop ("integer overflow") and the answer sums the rows instead. Both give the test's own exact
// sum (BigInt arithmetic in test/support/exact.ts). Records are the sandbox's, their amounts set by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOwed, answerOwedFromSums } from '../../src/answers/owed/figures.js';
import { answerSales, answerSalesByProduct, figuresOfSums, lineSumsOf, salesInvoices } from '../../src/answers/sales/figures.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import type { Rec } from '../../src/store/record.js';
import type { MirrorStore } from '../../src/store/store.js';
import { Exact } from '../support/exact.js';
import { get, type Json, type SandboxHandle, signIn, start } from './sandbox-http.js';

const TODAY = '2026-06-30';
let sb: SandboxHandle;
let template: Json;

beforeAll(async () => {
  sb = await start();
  const live = await signIn(sb.baseUrl, sb.keys.live);
  const sent = (await get(live, '/api/v1/invoices?status=sent&per_page=1')).body.data[0];
  template = (await get(live, `/api/v1/invoices/${sent.id}`)).body.data;
});
afterAll(async () => {
  await sb?.close();
});

/** An invoice of one line whose every amount is `amount` (no tax), owed in full, due 10 days before TODAY. */
const invoice = (id: number, amount: string): Json => ({
  ...template,
  id,
  number: `INV-${id}`,
  status: 'sent',
  currency: 'NZD',
  issue_date: '2026-06-01',
  due_date: '2026-06-20',
  subtotal: amount,
  tax_total: '0.00',
  total: amount,
  balance: amount,
  items: [{ ...template.items[0], product_id: 7, quantity: '1.000000', line_total: amount, tax_amount: '0.00' }],
});

async function storeOf(invoices: Json[]): Promise<MirrorStore> {
  const store = await openMirrorStore({ location: { kind: 'memory' }, identity: `${sb.baseUrl}|exact`, warn: () => undefined });
  await store.write('invoices', invoices as Rec[], []);
  for (const inv of invoices) await store.setLines(inv.id, inv.updated_at, inv.items);
  return store;
}

const sumOf = (amounts: string[]): Exact => amounts.reduce((s, a) => s.plus(a), Exact.of(0));
const filter = { excludeStatuses: ['draft', 'void'] };
const question = { range: { from: '2026-01-01', to: TODAY }, groupBy: 'product' as const, limit: 10 };
const owedQuestion = { today: TODAY, top: 10, invoiceLimit: 50 };

/** Every figure the answers make from these invoices, by the store's sums where it gives them, and by the rows. */
async function bothWays(store: MirrorStore) {
  const rows = await store.read.invoices(filter);
  const byRows = {
    totals: answerSales(rows, { ...question, groupBy: undefined }).totals,
    products: answerSales(rows, question, lineSumsOf(salesInvoices(rows, question), await store.read.lines(filter))),
    owed: answerOwed(await store.read.invoices({ receivable: true }), owedQuestion),
  };
  const totals = await store.read.invoiceSums(filter);
  const lines = await store.read.lineSums(filter);
  const owing = await store.read.owing({ top: 10, limit: 50 });
  const bySql = {
    totals: totals && figuresOfSums(totals),
    products: totals && lines && answerSalesByProduct(figuresOfSums(totals), lines, new Map(), question.limit),
    owed: owing && answerOwedFromSums(owing, owedQuestion),
  };
  return { byRows, bySql };
}

describe('sums of 18-digit amounts, past 20 significant digits and past 64 bits', () => {
  it('within 64 bits, SQLite sums each group of places and the answer adds the groups: the same as the rows, exactly', async () => {
    // 9 x 999999999999999999 units fit 64 bits; amounts of 2 places and of 0 places make two groups.
    const amounts = [...Array(9).fill('9999999999999999.99'), ...Array(9).fill('999999999999999999')];
    const store = await storeOf(amounts.map((a, i) => invoice(900_001 + i, a)));
    const { byRows, bySql } = await bothWays(store);
    const truth = sumOf(amounts);
    expect(truth.toFixed(2)).toBe('9089999999999999990.91');
    expect(bySql.totals).not.toBeNull();
    expect(bySql.products).not.toBeNull();
    expect(bySql.totals).toEqual(byRows.totals);
    expect(bySql.products).toEqual(byRows.products);
    expect(byRows.totals[0]!.total).toBe(truth.toFixed(2));
    expect(byRows.products.groups[0]!.total).toBe(truth.toFixed(2));
    expect(byRows.products.groups[0]!.quantity).toBe('18');
    // Balances of mixed places are summed from the rows (SQLite could not rank customers by them).
    expect(bySql.owed).toBeNull();
    expect(byRows.owed.currencies[0]!.balance).toBe(truth.toFixed(2));
    await store.close();
  });

  it('past 64 bits, SQLite stops rather than round and the answer sums the rows, exactly', async () => {
    const amounts = Array(10).fill('9999999999999999.99');
    const store = await storeOf(amounts.map((a, i) => invoice(910_001 + i, a)));
    const { byRows, bySql } = await bothWays(store);
    expect(bySql).toEqual({ totals: null, products: null, owed: null });
    const truth = sumOf(amounts).toFixed(2);
    expect(truth).toBe('99999999999999999.90');
    expect([byRows.totals[0]!.total, byRows.products.groups[0]!.total, byRows.owed.currencies[0]!.balance]).toEqual([truth, truth, truth]);
    expect(byRows.owed.currencies[0]!.aged['1_30'].balance).toBe(truth);
    await store.close();
  });

  it('owing: within 64 bits SQLite ranks and sums the balances exactly as the rows do', async () => {
    const amounts = Array(9).fill('9999999999999999.99');
    const store = await storeOf(
      amounts.map((a, i) => ({ ...invoice(920_001 + i, a), customer: { ...template.customer, id: 1 + (i % 3) } })),
    );
    const { byRows, bySql } = await bothWays(store);
    expect(bySql.owed).not.toBeNull();
    expect(bySql.owed).toEqual(byRows.owed);
    expect(byRows.owed.currencies[0]!.balance).toBe(sumOf(amounts).toFixed(2));
    await store.close();
  });
});
