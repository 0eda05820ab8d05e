// Tasks on a server of two businesses, under the service's real pace (20 calls a second): a long answer of
// one business becomes a task kept in that business's books and run on its unit; polled to the end, its
// result names its business and its figures are that business's own, checked against its raw API.
import type { TaskView } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProductSales, invoiced, issuedIn, type RawBooks, readRawBooks } from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessesFile } from './support/businesses-file.js';
import { lastQuarter } from './support/line-reads.js';
import { pacedLines } from './support/paced-lines.js';
import { type HttpServerHere, spawnHttpServer } from './support/server.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';

const TODAY = '2027-03-15';

let sb: TestSandbox;
let server: HttpServerHere;
let c: TaskClient;
let main: RawBooks;

beforeAll(async () => {
  sb = await startTestSandbox({ today: TODAY, rateLimit: 20, rateWindowSeconds: 1 });
  const [mainKey, smallKey, truthKey] = [sb.keys.live, await sb.makeKey('live', ALL_SCOPES, 2), await sb.makeKey('live')];
  main = await readRawBooks(sb.baseUrl, truthKey);
  const file = businessesFile([
    { name: 'Main', base_url: sb.baseUrl, key_id: mainKey.key_id, secret: mainKey.secret },
    { name: 'Small', base_url: sb.baseUrl, key_id: smallKey.key_id, secret: smallKey.secret },
  ]);
  server = await spawnHttpServer(['--businesses', file], { INVOICING_MCP_MIRROR: 'memory' });
  c = await connectTaskClient(server.url);
}, 60_000);
afterAll(async () => {
  await c?.close();
  await server?.close();
  await sb?.close();
});

describe('a task of one of two businesses', () => {
  it("is polled to the end with tasks/get, names its business, and holds that business's figures", async () => {
    const range = lastQuarter(TODAY);
    const execution = await c.session.callTool('report_sales', {
      business: 'main',
      range: 'last_quarter',
      group_by: 'product',
      limit: 400,
    } as never);
    const tasks: TaskView[] = [];
    const { outcome } = await execution.settle({ onEvent: (event) => void (event.type === 'task' && tasks.push(event.task)) });
    expect(execution.kind).toBe('task');
    expect(outcome.status).toBe('completed');
    const result = (outcome as { result: Json }).result;
    const text = (result.content as { text: string }[])[0]?.text ?? '';
    expect(result.isError, text).toBeFalsy();
    expect(text.split('\n')[0]).toBe('Business: Main.');
    const rows = main.invoices.filter((i: Json) => invoiced(i) && issuedIn(i, range));
    expect(result.structuredContent.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
    for (const [id, items] of await pacedLines(
      main.session,
      rows.map((i: Json) => i.id),
    ))
      main.lines.set(id, items);
    await expectProductSales(result.structuredContent, main, rows);
    // The task is its owner's, found in the books that keep it; an id no business keeps is unknown.
    const id = tasks[0]?.taskId as string;
    const got = await c.raw('tasks/get', { taskId: id });
    expect(got.kind).toBe('result');
    const unknown = await c.raw('tasks/get', { taskId: `${id}x` });
    expect(unknown.kind).toBe('error');
  }, 90_000);
});
