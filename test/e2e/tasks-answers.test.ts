import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { TaskView } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectProductSales,
  invoiced,
  issuedIn,
  plus,
  type RawBooks,
  readRawBooks,
  same,
  type Tally,
  tally,
} from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { Exact } from '../support/exact.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { lastQuarter, lineReads } from './support/line-reads.js';
import { pacedLines } from './support/paced-lines.js';
import { type HttpServerHere, keyEnv, spawnHttpServer } from './support/server.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';

const TODAY = '2027-03-15';

/** The server's reads of single invoices' lines, by path (see support/line-reads.ts). */
async function invoiceReads(sb: TestSandbox, keyId: string): Promise<string[]> {
  return (await lineReads(sb, keyId)).map((id) => `/api/v1/invoices/${id}`);
}

/** An answer's text and structured content, its as-of (the service's clock moves on between two asks) set aside. */
function asAnswered(text: string, structured: Json): Json {
  const asOf = structured.as_of as string;
  return { text: text.replaceAll(asOf, 'AS_OF'), structured: { ...structured, as_of: 'AS_OF' } };
}

/** The same question from a client without the extension, once the mirror is warm: text and structured content. */
async function warmAnswer(url: string, name: string, args: Record<string, unknown>): Promise<Json> {
  const client = new Client({ name: 'plain', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name, arguments: args });
    return asAnswered((result.content as { text: string }[])[0]!.text, result.structuredContent as Json);
  } finally {
    await client.close();
  }
}

interface Asked {
  result: Json;
  tasks: TaskView[];
  kind: string;
}

async function askAsTask(c: TaskClient, name: string, args: Record<string, unknown>): Promise<Asked> {
  const execution = await c.session.callTool(name, args as never);
  const tasks: TaskView[] = [];
  const { outcome } = await execution.settle({
    onEvent: (event) => {
      if (event.type === 'task') tasks.push(event.task);
    },
  });
  if (outcome.status !== 'completed') throw new Error(`task ${outcome.status}`);
  return { result: outcome.result as Json, tasks, kind: execution.kind };
}

describe('answers as tasks on a cold mirror at scale 10', () => {
  let sb: TestSandbox;
  let server: HttpServerHere;
  let c: TaskClient;
  let books: RawBooks;
  beforeAll(async () => {
    sb = await startTestSandbox({ scale: 10, today: TODAY, rateLimit: 120, rateWindowSeconds: 0.25 });
    // The ground truth reads with a key of its own: the server's key and its calls stay the server's alone.
    const truthKey = await sb.makeKey('live');
    books = await readRawBooks(sb.baseUrl, truthKey);
    server = await spawnHttpServer([], { ...keyEnv(sb, sb.keys.live), INVOICING_MCP_MIRROR: 'memory' });
    c = await connectTaskClient(`${server.url}`);
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await server?.close();
    await sb?.close();
  });

  it('top products last quarter: one tools/call, a task polled to the end, every product figure exact', async () => {
    const range = lastQuarter(TODAY);
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
    const asked = await askAsTask(c, 'report_sales', { range: 'last_quarter', group_by: 'product', limit: 400 });
    expect(asked.kind, JSON.stringify(asked.result).slice(0, 600)).toBe('task');
    const messages = asked.tasks.map((t) => t.statusMessage ?? '');
    expect(
      // What a poll sees depends on the moment: the lines being read, or the key's window being waited out.
      messages.some(
        (m) =>
          /^reading the lines of [\d,]+ of [\d,]+ invoices, about \d+ (seconds?|minutes) at your key's limit$/.test(m) ||
          /^waiting for the key's limit: resumes in \d+ s \(120 calls per [\d.]+ s\)$/.test(m),
      ),
      messages.join('\n'),
    ).toBe(true);
    const a = asked.result.structuredContent as Json;
    expect(asked.result.isError, `${JSON.stringify(asked.result.content)}\n${server.stderr().slice(-3000)}`).toBeFalsy();
    expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    expect(a.lines_pending).toBeUndefined();
    const text = (asked.result.content as { text: string }[])[0]!.text;
    expect(text).not.toContain('PARTIAL');
    expect(text).toContain(`Product figures from the lines of ${rows.length} of ${rows.length} invoices.`);
    const reads = await invoiceReads(sb, sb.keys.live.key_id);
    expect(reads.length).toBe(new Set(reads).size);
    expect(reads.length).toBe(rows.length);
    for (const [id, items] of await pacedLines(
      books.session,
      rows.map((i) => i.id),
    ))
      books.lines.set(id, items);
    await expectProductSales(a, books, rows);
    const warm = await warmAnswer(server.url, 'report_sales', { range: 'last_quarter', group_by: 'product', limit: 400 });
    expect(asAnswered(text, a)).toEqual(warm);
  }, 60_000);

  it('who bought product X in the past year: one tools/call, a task polled to the end, every buyer exact', async () => {
    const year = { from: plus(TODAY, -365), to: TODAY };
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, year));
    const before = new Set(await invoiceReads(sb, sb.keys.live.key_id));
    // X: the product on the most invoices of the last quarter (whose lines the first question's truth holds).
    const onInvoices = new Map<number, number>();
    for (const items of books.lines.values())
      for (const id of new Set(items.map((l) => l.product_id).filter((p) => p !== null))) onInvoices.set(id, (onInvoices.get(id) ?? 0) + 1);
    const [productId] = [...onInvoices].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0]!;
    const args = { ...year, product_id: productId, group_by: 'customer', limit: 400 };
    const asked = await askAsTask(c, 'report_sales', args);
    expect(asked.kind, JSON.stringify(asked.result).slice(0, 600)).toBe('task');
    const a = asked.result.structuredContent as Json;
    const text = (asked.result.content as { text: string }[])[0]!.text;
    expect(asked.result.isError, `${text}\n${server.stderr().slice(-3000)}`).toBeFalsy();
    expect(text).not.toContain('PARTIAL');
    expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    // Each invoice of the year whose lines were missing read once; none of those read for the first question again.
    const reads = (await invoiceReads(sb, sb.keys.live.key_id)).filter((p) => !before.has(p));
    expect(reads.length).toBe(new Set(reads).size);
    expect(reads.length).toBe(rows.filter((i) => !books.lines.has(i.id)).length);
    for (const [id, items] of await pacedLines(
      books.session,
      rows.filter((i) => !books.lines.has(i.id)).map((i) => i.id),
    ))
      books.lines.set(id, items);
    const bought = rows.flatMap((i) => {
      const own = books.lines.get(i.id)!.filter((l) => l.product_id === productId);
      if (own.length === 0) return [];
      return [{ ...i, total: own.reduce((t, l) => t.plus(l.line_total).plus(l.tax_amount), Exact.of(0)).toString() }];
    });
    const truth: Map<string, Tally> = tally(
      bought,
      (i) => `${i.customer.id} ${i.currency}`,
      (i) => i.total,
    );
    expect(bought.length).toBeGreaterThan(0);
    expect(a.groups.length + a.groups_left_out).toBe(truth.size);
    for (const g of a.groups) {
      const t = truth.get(`${g.key} ${g.currency}`);
      expect(t, `${g.key} ${g.currency}`).toBeDefined();
      expect(g.count, `${g.key} ${g.currency}`).toBe(t!.count);
      expect(same(g.total, t!.sum), `${g.key} ${g.currency}`).toBe(true);
    }
    expect(asAnswered(text, a)).toEqual(await warmAnswer(server.url, 'report_sales', args));
  }, 60_000);
});
