// A flood of task calls on a hosted server (Postgres, two businesses) at the service's real pace (20 calls per
// 5 s a key, 429 past it): 60 tools/call that opt into tasks from one grant at once, twelve questions asked five
// times each. They make at most three tasks (the owner's bound), each question's calls share one answer or
// handle, the rest answer as for a client without tasks; and while the tasks read lines, another business's
// plain calls and the same grant's own plain calls are answered, each equal to the raw API's record.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { invoiced, issuedIn, plus, type RawBooks, readRawBooks, same, tally } from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { codeFor, codeForm, tokenRequest } from './support/pkce-flow.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';

const TODAY = '2027-03-15';
const QUESTIONS = 12;
const TIMES_EACH = 5;

let sb: TestSandbox;
let server: HostedServer;
let other: KeyPair;
let mineTruth: RawBooks;
let theirTruth: RawBooks;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  sb = await startTestSandbox({ scale: 2, today: TODAY, rateLimit: 100_000, rateWindowSeconds: 1 });
  other = await sb.makeKey('live', ALL_SCOPES, 2);
  mineTruth = await readRawBooks(sb.baseUrl, await sb.makeKey('live'));
  theirTruth = await readRawBooks(sb.baseUrl, await sb.makeKey('live', ALL_SCOPES, 2));
  // The truth is read: from here on, the service's real shape of pace (a fixed window a key, 429 past it).
  expect((await sb.admin('PUT', '/rate-limit', { limit: 20, window_seconds: 5 })).status).toBe(200);
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('tasks_flood'), vaultKey: newVaultKey() });
}, 60_000);
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.close();
  await sb?.close();
});

/** A grant of the tenant of this key, through the server's own authorization flow: its access token. */
async function grantOf(key: KeyPair): Promise<string> {
  const held = await codeFor(server, { keyId: key.key_id, secret: key.secret });
  const tokens = await tokenRequest(server.origin, codeForm(held, server));
  expect(tokens.status).toBe(200);
  return tokens.body.access_token as string;
}

async function taskClient(token: string): Promise<TaskClient> {
  const client = await connectTaskClient(server.url, token);
  closers.push(() => client.close());
  return client;
}

/** A client without the tasks extension (the v2 SDK client on 2026-07-28), under this grant. */
async function plainClient(token: string): Promise<Connected> {
  const client = await connectClient('v2', { http: server.url, token });
  closers.push(() => client.close());
  return client;
}

/** Plain reads that need one service call each, answered one after another: each result's text, and how long the slowest took. */
async function plainReads(c: Connected, ids: number[]): Promise<{ texts: string[]; slowestMs: number }> {
  const texts: string[] = [];
  let slowestMs = 0;
  for (const id of ids) {
    const began = Date.now();
    const result = await c.client.callTool({ name: 'get_invoice', arguments: { id } });
    slowestMs = Math.max(slowestMs, Date.now() - began);
    expect(result.isError, textOf(result)).toBeFalsy();
    texts.push(textOf(result));
  }
  return { texts, slowestMs };
}

/** An answer's totals by currency against the test's own sums of the raw invoices of its range. */
function expectTotals(answer: Json, books: RawBooks): void {
  const truth = tally(
    books.invoices.filter((i) => invoiced(i) && issuedIn(i, answer)),
    (i) => i.currency as string,
    (i) => i.total as string,
  );
  expect(answer.totals.length).toBe(truth.size);
  for (const t of answer.totals) {
    expect(t.count, t.currency).toBe(truth.get(t.currency)?.count);
    expect(same(t.total, truth.get(t.currency)!.sum), t.currency).toBe(true);
  }
}

it('60 task calls from one grant at once: at most 3 tasks, and both businesses are answered meanwhile', async () => {
  const mineToken = await grantOf(sb.keys.live);
  const flooding = await taskClient(mineToken);
  const mine = await plainClient(mineToken);
  const theirs = await plainClient(await grantOf(other));

  // Twelve questions, each a year of sales by product from another day (every one needs most of a year's lines).
  const questions = Array.from({ length: QUESTIONS }, (_, n) => ({
    from: plus(TODAY, -365 + n),
    to: TODAY,
    group_by: 'product',
    limit: 400,
  }));
  const calls = questions.flatMap((args) => Array.from({ length: TIMES_EACH }, () => ({ args })));
  const answers = await Promise.all(calls.map(({ args }) => flooding.raw('tools/call', { name: 'report_sales', arguments: args })));

  expect(
    answers.every((a) => a.kind === 'result'),
    JSON.stringify(answers.find((a) => a.kind !== 'result')),
  ).toBe(true);
  const results = answers.map((a) => (a.kind === 'result' ? (a.result as Json) : null));
  const tasks = results.filter((r) => r.resultType === 'task');
  const taskIds = new Set(tasks.map((t) => t.taskId as string));
  // Three questions made the owner's three tasks, each joined by its other four calls.
  expect(taskIds.size).toBe(3);
  expect(tasks.length).toBe(3 * TIMES_EACH);
  // The five calls of each question answered alike: one task's handle, or each answered as without tasks.
  for (let q = 0; q < QUESTIONS; q++) {
    const five = results.slice(q * TIMES_EACH, (q + 1) * TIMES_EACH);
    const handles = new Set(five.map((r) => (r.resultType === 'task' ? r.taskId : 'plain')));
    expect(handles.size, `question ${q}: ${[...handles].join(', ')}`).toBe(1);
  }
  // Past the bound, a call answers as without tasks: the figures so far, saying the lines still to come.
  const plain = results.filter((r) => r.resultType !== 'task');
  expect(plain.length).toBe((QUESTIONS - 3) * TIMES_EACH);
  for (const r of plain) {
    expect(r.isError, JSON.stringify(r.content).slice(0, 400)).toBeFalsy();
    expect(r.content[0].text).toContain('PARTIAL');
    expect(r.structuredContent.lines_pending.invoices).toBeGreaterThan(0);
    expectTotals(r.structuredContent, mineTruth);
  }

  // While the tasks read their lines: the other business's plain calls, and this grant's own, each one service call.
  const theirIds = theirTruth.invoices.slice(0, 5).map((i) => i.id as number);
  const myIds = mineTruth.invoices.slice(0, 5).map((i) => i.id as number);
  const [theirReads, myReads] = await Promise.all([plainReads(theirs, theirIds), plainReads(mine, myIds)]);
  for (const [n, id] of theirIds.entries()) {
    expect(theirReads.texts[n]).toContain(theirTruth.invoices.find((i) => i.id === id).number);
  }
  for (const [n, id] of myIds.entries()) expect(myReads.texts[n]).toContain(mineTruth.invoices.find((i) => i.id === id).number);
  // Each answered within two of the key's windows, though the owner's three tasks read lines all the while.
  expect(theirReads.slowestMs).toBeLessThan(10_000);
  expect(myReads.slowestMs).toBeLessThan(10_000);
  const still = await Promise.all([...taskIds].map((taskId) => flooding.raw('tasks/get', { taskId })));
  for (const s of still) expect(s.kind === 'result' && (s.result as Json).status, JSON.stringify(s).slice(0, 400)).toBe('working');
  for (const taskId of taskIds) await flooding.raw('tasks/cancel', { taskId });
}, 180_000);
