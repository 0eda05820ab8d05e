// The test's own reading of the books: every record from the sandbox's raw HTTP API, and the figures an
// everyday question expects, worked out here with the tests' own BigInt decimal. None of the server's code is used.

import { expect } from 'vitest';
import { get, type Json, listAll, type Session, signIn } from '../contract/sandbox-http.js';
import type { McpClient } from '../e2e/support/clients.js';
import { Exact } from '../support/exact.js';
import type { KeyPair } from '../support/sandbox.js';

export interface RawBooks {
  session: Session;
  customers: Json[];
  invoices: Json[];
  quotes: Json[];
  payments: Json[];
  products: Json[];
  /** Invoice lines read so far, by invoice id (productSales reads each invoice's lines once). */
  lines: Map<number, Json[]>;
}

export async function readRawBooks(baseUrl: string, key: KeyPair): Promise<RawBooks> {
  const session = await signIn(baseUrl, key);
  const [customers, invoices, quotes, payments, products] = await Promise.all(
    ['customers', 'invoices', 'quotes', 'payments', 'products'].map((kind) => listAll(session, `/api/v1/${kind}`)),
  );
  return {
    session,
    customers: customers!,
    invoices: invoices!,
    quotes: quotes!,
    payments: payments!,
    products: products!,
    lines: new Map(),
  };
}

/** The lines of these invoices, one GET each, as the service answers a single invoice. */
export async function linesOf(session: Session, ids: number[]): Promise<Map<number, Json[]>> {
  const out = new Map<number, Json[]>();
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const reply = await get(session, `/api/v1/invoices/${id}`);
        if (reply.status !== 200) throw new Error(`GET invoice ${id}: ${reply.status}`);
        out.set(id, reply.body.data.items);
      }),
    );
  }
  return out;
}

// ---- calendar, on YYYY-MM-DD strings ----
const DAY = 86_400_000;
const ms = (date: string): number => Date.parse(`${date}T00:00:00Z`);
export const plus = (date: string, days: number): string => new Date(ms(date) + days * DAY).toISOString().slice(0, 10);
export const daysFrom = (from: string, to: string): number => Math.round((ms(to) - ms(from)) / DAY);

export function lastMonth(today: string): { from: string; to: string } {
  const d = new Date(ms(today));
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return { from: first.toISOString().slice(0, 10), to: new Date(next.getTime() - DAY).toISOString().slice(0, 10) };
}

export function thisQuarter(today: string): { from: string; to: string } {
  const d = new Date(ms(today));
  const q = Math.floor(d.getUTCMonth() / 3) * 3;
  const first = new Date(Date.UTC(d.getUTCFullYear(), q, 1));
  const next = new Date(Date.UTC(d.getUTCFullYear(), q + 3, 1));
  return { from: first.toISOString().slice(0, 10), to: new Date(next.getTime() - DAY).toISOString().slice(0, 10) };
}

// ---- sums ----
export interface Tally {
  count: number;
  sum: Exact;
}

/** Sums `amount(record)` per `key(record)`, exactly. */
export function tally<K>(records: Json[], key: (r: Json) => K, amount: (r: Json) => string): Map<K, Tally> {
  const out = new Map<K, Tally>();
  for (const r of records) {
    const k = key(r);
    const t = out.get(k) ?? { count: 0, sum: Exact.of(0) };
    t.count++;
    t.sum = t.sum.plus(amount(r));
    out.set(k, t);
  }
  return out;
}

/** Equal as decimals ("12.50" and "12.5" are the same amount). */
export const same = (a: string | number | Exact, b: string | number | Exact): boolean => Exact.of(a).equals(b);

export const receivable = (i: Json): boolean => i.status !== 'draft' && i.status !== 'void' && Exact.of(i.balance).greaterThan(0);
export const invoiced = (i: Json): boolean => i.status !== 'draft' && i.status !== 'void';
export const issuedIn = (i: Json, r: { from: string; to: string }): boolean => i.issue_date >= r.from && i.issue_date <= r.to;

export function ageBand(daysPastDue: number): string {
  if (daysPastDue <= 0) return 'not_due';
  if (daysPastDue <= 30) return '1_30';
  if (daysPastDue <= 60) return '31_60';
  if (daysPastDue <= 90) return '61_90';
  return 'over_90';
}

/**
 * A tool's structured answer, through a real MCP client, with the text a model reads as its `text` (not
 * enumerable: comparisons of the whole answer see only the structured content); a refusal fails with its text.
 */
export async function answerOf(
  client: { callTool: McpClient['callTool'] },
  name: string,
  args: Record<string, unknown> = {},
): Promise<Json> {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content.map((c) => c.text).join('\n');
  if (result.isError) throw new Error(`${name} refused: ${text}`);
  return Object.defineProperty({ ...result.structuredContent }, 'text', { value: text, enumerable: false });
}

/** Sales by product for these invoices, keyed `<product id> <currency>`: total with tax, subtotal and quantity. */
export async function productSales(
  books: RawBooks,
  rows: Json[],
): Promise<{ totals: Map<string, Tally>; subtotals: Map<string, Tally>; quantities: Map<string, Tally> }> {
  const missing = rows.map((i) => i.id as number).filter((id) => !books.lines.has(id));
  for (const [id, items] of await linesOf(books.session, missing)) books.lines.set(id, items);
  const lines = books.lines;
  const currencyOf = new Map(rows.map((i) => [i.id, i.currency]));
  const flat = rows.flatMap((i) => lines.get(i.id)!.map((l) => ({ ...l, invoice_id: i.id })));
  const key = (l: Json): string => `${l.product_id} ${currencyOf.get(l.invoice_id)}`;
  return {
    totals: tally(flat, key, (l) => Exact.of(l.line_total).plus(l.tax_amount).toString()),
    subtotals: tally(flat, key, (l) => l.line_total),
    quantities: tally(flat, key, (l) => l.quantity),
  };
}

/** An answer's product groups (and how many it left out) against the test's own sums of these invoices' lines. */
export async function expectProductSales(answer: Json, books: RawBooks, rows: Json[]): Promise<void> {
  const { totals, quantities } = await productSales(books, rows);
  expect(answer.groups.length + answer.groups_left_out).toBe(totals.size);
  for (const g of answer.groups) {
    const key = `${g.key} ${g.currency}`;
    expect(same(g.total, totals.get(key)!.sum), key).toBe(true);
    expect(same(g.quantity, quantities.get(key)!.sum), key).toBe(true);
  }
}
