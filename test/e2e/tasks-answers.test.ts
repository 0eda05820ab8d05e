import type { TaskView } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProductSales, invoiced, issuedIn, plus, type RawBooks, readRawBooks, thisQuarter } from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { pacedLines } from './support/paced-lines.js';
import { type HttpServerHere, keyEnv, spawnHttpServer } from './support/server.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';

const TODAY = '2027-03-15';

function lastQuarter(today: string): { from: string; to: string } {
  const { from } = thisQuarter(today);
  return { from: thisQuarter(plus(from, -1)).from, to: plus(from, -1) };
}

/** The server's reads of single invoices (their lines), by path. */
async function invoiceReads(sb: TestSandbox, keyId: string): Promise<string[]> {
  return (await sb.requests(keyId)).filter((r) => r.method === 'GET' && /^\/api\/v1\/invoices\/\d+$/.test(r.path)).map((r) => r.path);
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
      messages.some((m) => /^reading the lines of [\d,]+ of [\d,]+ invoices, about \d+ (seconds?|minutes) at your key's limit$/.test(m)),
      messages.join('\n'),
    ).toBe(true);
    const a = asked.result.structuredContent as Json;
    expect(asked.result.isError).toBeFalsy();
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
  }, 60_000);
});
