// A question asked of a cold mirror (no background rounds, nothing read yet): the answer waits for the
// whole read, tells a client that sent a progress token how the read is going (rising progress, the
// service's total), and the figure it gives is the whole one, checked against the test's own arithmetic on
// the raw API. Asked again at once, it reads nothing and reports no progress.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { stdioCommand } from '../e2e/support/server.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { readRawBooks, receivable, same, tally, type RawBooks } from './ground-truth.js';

const TODAY = '2027-03-15';
let sb: TestSandbox;
let books: RawBooks;
let client: Client;

beforeAll(async () => {
  sb = await startTestSandbox({ scale: 2, today: TODAY, rateLimit: 1_000_000 });
  books = await readRawBooks(sb.baseUrl, sb.keys.live);
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '0' };
  client = new Client({ name: 'cold-progress-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ ...stdioCommand(['--mirror', 'memory'], env), stderr: 'ignore' }));
}, 120_000);
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

async function owed(updates: Progress[]): Promise<Json> {
  const result = await client.callTool({ name: 'report_owed', arguments: {} }, { onprogress: (p) => void updates.push(p) });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as Json;
}

it('reports the cold read as MCP progress, then answers with the whole figure', async () => {
  const updates: Progress[] = [];
  const answer = await owed(updates);

  // Every page of the invoices is a step: several steps, each higher, ending at the service's total.
  expect(books.invoices.length).toBeGreaterThan(300);
  expect(updates.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
  const last = updates.at(-1)!;
  expect(last.progress).toBe(books.invoices.length);
  expect(last.total).toBe(books.invoices.length);
  expect(updates.every((u) => /reading invoices/.test(u.message ?? ''))).toBe(true);

  const truth = tally(books.invoices.filter(receivable), (i) => i.currency, (i) => i.balance);
  expect(answer.currencies.map((c: Json) => c.currency).sort()).toEqual([...truth.keys()].sort());
  for (const c of answer.currencies) {
    expect(c.count, c.currency).toBe(truth.get(c.currency)!.count);
    expect(same(c.balance, truth.get(c.currency)!.sum), `${c.currency} ${c.balance}`).toBe(true);
  }
});

it('asked again at once, reads nothing and reports no progress', async () => {
  const first: Progress[] = [];
  const before = await owed(first);
  const again: Progress[] = [];
  const after = await owed(again);
  expect(again).toEqual([]);
  expect(after.currencies).toEqual(before.currencies);
});
