// A product question asked of a cold mirror (a new server, no background rounds: SVC_POLL_SECONDS=0, so no line
// would ever arrive by itself). Where the missing lines fit about half a minute at the key's pace, the one call
// reads them in the tool calls' lane, says how it goes as MCP progress, and answers whole: figures equal to the
// test's own sums of the raw API's invoice details, and exactly one service call per invoice whose lines were
// missing. Where they do not fit (the key's 120 calls a minute, a whole year of invoices), it answers at once
// with what is stored, says PARTIAL, how many invoices wait and about how long, and reads those first.
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { compiledOnceV2 } from '../support/schema-validators.js';
import { expectProductSales, invoiced, issuedIn, type RawBooks, readRawBooks, thisQuarter } from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';

const TODAY = '2027-03-15';

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

interface Cold {
  client: Client;
  close(): Promise<void>;
}

async function coldServer(sb: TestSandbox): Promise<Cold> {
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '0' };
  const server = await startInProcessServer(env, { mirror: 'memory' });
  const client = new Client({ name: 'cold-products-test', version: '1.0.0' }, { jsonSchemaValidator: compiledOnceV2 });
  await client.connect(server.transport);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The key's calls for single invoices (their lines) in the sandbox's log: the test itself makes none before it asks. */
async function invoiceReads(sb: TestSandbox): Promise<string[]> {
  return (await sb.requests(sb.keys.live.key_id))
    .filter((r) => r.method === 'GET' && /^\/api\/v1\/invoices\/\d+$/.test(r.path))
    .map((r) => r.path);
}

describe('lines that fit the wait', () => {
  let sb: TestSandbox;
  let books: RawBooks;
  let cold: Cold;
  beforeAll(async () => {
    sb = await startTestSandbox({ scale: 1, today: TODAY, rateLimit: 1_000_000 });
    books = await readRawBooks(sb.baseUrl, sb.keys.live);
    cold = await coldServer(sb);
  }, 60_000);
  afterAll(async () => {
    await cold?.close();
    await sb?.close();
  });

  it('are read in the call, with rising progress, one service call per invoice, and the answer is whole and exact', async () => {
    const range = thisQuarter(TODAY);
    const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
    const updates: Progress[] = [];
    const result = await cold.client.callTool(
      { name: 'report_sales', arguments: { range: 'this_quarter', group_by: 'product', limit: 400 } },
      { onprogress: (p) => void updates.push(p) },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const a = result.structuredContent as Json;

    expect(a.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    expect(a.lines_pending).toBeUndefined();
    const reads = await invoiceReads(sb);
    expect(new Set(reads).size).toBe(rows.length);
    expect(reads.length).toBe(rows.length);

    for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
    const lineUpdates = updates.filter((u) => /Invoice lines/.test(u.message ?? ''));
    expect(lineUpdates.length).toBeGreaterThan(1);
    expect(lineUpdates.at(-1)!.message).toBe(`Invoice lines: ${rows.length} of ${rows.length}`);
    expect(updates.at(-1)!.progress).toBe(updates.at(-1)!.total);

    await expectProductSales(a, books, rows);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain(`Product figures from the lines of ${rows.length} of ${rows.length} invoices.`);
  });
});

describe('lines too many for the wait', () => {
  let sb: TestSandbox;
  let cold: Cold;
  beforeAll(async () => {
    // The service's own limit: 120 calls a minute, so about 60 fit half a minute.
    sb = await startTestSandbox({ scale: 1, today: TODAY, rateLimit: 120 });
    cold = await coldServer(sb);
  }, 60_000);
  afterAll(async () => {
    await cold?.close();
    await sb?.close();
  });

  it('are queued first in the background; the answer comes at once, PARTIAL, saying how many and about how long', async () => {
    const result = await cold.client.callTool({ name: 'report_sales', arguments: { range: 'this_year', group_by: 'product' } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const a = result.structuredContent as Json;
    expect(a.lines.invoices).toBeGreaterThan(60);
    expect(a.lines.with_lines).toBeLessThan(a.lines.invoices);
    expect(a.lines_pending.invoices).toBe(a.lines.invoices - a.lines.with_lines);
    expect(a.lines_pending.seconds).toBeGreaterThan(30);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toMatch(
      new RegExp(
        `PARTIAL: the lines of ${a.lines_pending.invoices} invoices are too many to read while you wait; they are read first in the background, whole in about \\d+ (s|min)`,
      ),
    );
    // The model is told to come back, not to scan the books one invoice at a time.
    expect(text).toMatch(/For whole figures, ask again after about \d+ (s|min) rather than reading invoices' lines one by one\)/);
  });
});
