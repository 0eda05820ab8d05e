// A task on a desktop server (stdio, one key, a mirror file) outlives its process: made through the v2 SDK client
// declaring the tasks extension, the server killed (SIGKILL) while the task reads the lines at the service's real
// pace (20 calls per 5 s, 429 past it), and a new server started on the same file answers the same task id to the
// same user, takes the task over and finishes it. The result equals the test's own sums from the raw API, and no
// invoice's lines are read twice, save those the killed process had been answered for but not yet stored.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import Database from 'libsql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectProductSales, invoiced, issuedIn, type RawBooks, readRawBooks } from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { StdioV2InPlace } from './support/clients.js';
import { lastQuarter, lineReads } from './support/line-reads.js';
import { pacedLines } from './support/paced-lines.js';
import { keyEnv, stdioCommand } from './support/server.js';
import { expectReadOnceAcrossKill, wholeAnswer } from './support/taken-over.js';
import { TASKS_EXTENSION } from './support/task-client.js';
import { untilSeen } from './support/until-seen.js';

const TODAY = '2027-03-15';

let sb: TestSandbox;
let books: RawBooks;
let mirror: string;
const clients: Client[] = [];
beforeAll(async () => {
  sb = await startTestSandbox({ scale: 2, today: TODAY, rateLimit: 100_000, rateWindowSeconds: 1 });
  books = await readRawBooks(sb.baseUrl, await sb.makeKey('live'));
  const range = lastQuarter(TODAY);
  const ids = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range)).map((i) => i.id as number);
  for (const [id, items] of await pacedLines(books.session, ids)) books.lines.set(id, items);
  // The truth is read: from here on, the service's real shape of pace (a fixed window, 429 past it).
  const paced = await sb.admin('PUT', '/rate-limit', { limit: 20, window_seconds: 5 });
  expect(paced.status).toBe(200);
  mirror = join(mkdtempSync(join(tmpdir(), 'tasks-restart-')), 'mirror.db');
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await sb?.close();
});

const REVISION = '2026-07-28';
const CLIENT_INFO = { name: 'tasks-restart', version: '1.0.0' };
const CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

/**
 * A desktop client of a server it starts on the mirror file: the v2 SDK client, declaring the tasks extension,
 * on its stdio transport. The SDK's codec decodes no task of a tools/call, so the task's requests go on the
 * same transport as the extension sends them (its raw dispatch): the revision's _meta on each, the answer taken
 * off the wire by its id before the client sees it.
 */
async function desktop(): Promise<{ client: Client; pid: number; ask: (method: string, params: Json) => Promise<Json> }> {
  const client = new Client(CLIENT_INFO, { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: REVISION } } });
  const transport = new StdioV2InPlace({ ...stdioCommand(['--mirror', mirror], keyEnv(sb, sb.keys.live)), stderr: 'pipe' });
  (transport.stderr as NodeJS.ReadableStream | null)?.on('data', () => undefined);
  await client.connect(transport);
  clients.push(client);
  const waiting = new Map<string, (message: Json) => void>();
  const deliver = transport.onmessage;
  transport.onmessage = (message: Json, extra?: unknown) => {
    const mine = waiting.get(message.id);
    if (!mine) return deliver?.call(transport, message, extra as never);
    waiting.delete(message.id);
    mine(message);
  };
  let next = 0;
  const ask = async (method: string, params: Json): Promise<Json> => {
    const id = `raw-${++next}`;
    const answered = new Promise<Json>((resolve) => waiting.set(id, resolve));
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
    };
    await transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } } as never);
    const message = await answered;
    if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message.result;
  };
  return { client, pid: transport.pid as number, ask };
}

/** Invoices of the range whose lines the mirror file holds (matching their headers). */
function storedLines(range: { from: string; to: string }): Set<number> {
  const raw = new Database(mirror, { readonly: true });
  try {
    const rows = raw
      .prepare('SELECT id FROM invoices WHERE lines_stamp = stamp AND issue_date >= ? AND issue_date <= ?')
      .all(range.from, range.to) as { id: number }[];
    return new Set(rows.map((r) => Number(r.id)));
  } finally {
    raw.close();
  }
}

/** The process id of the task's holder, as the file says. */
function holderPid(taskId: string): number | null {
  const raw = new Database(mirror, { readonly: true });
  try {
    const row = raw.prepare('SELECT holder FROM tasks WHERE id = ?').get(taskId) as { holder: string | null } | undefined;
    return row?.holder ? Number(row.holder.split('/')[1]) : null;
  } finally {
    raw.close();
  }
}

it('made on a stdio server, the server killed mid-task: a new server on the same file finishes it, exact, each line read once', async () => {
  const range = lastQuarter(TODAY);
  const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
  const first = await desktop();
  const handle = await first.ask('tools/call', {
    name: 'report_sales',
    arguments: { range: 'last_quarter', group_by: 'product', limit: 400 },
  });
  expect(handle.resultType, JSON.stringify(handle).slice(0, 400)).toBe('task');
  expect(handle.status).toBe('working');

  // At 4 calls a second the task's lines take the better part of a minute: it is killed a fifth of the way in.
  await untilSeen(
    'a fifth of the lines stored',
    async () => {
      const task = await first.ask('tasks/get', { taskId: handle.taskId });
      if (task.status !== 'working') throw new Error(`the task ended first: ${JSON.stringify(task).slice(0, 600)}`);
      return storedLines(range).size >= rows.length / 5 ? true : null;
    },
    60_000,
    200,
  );
  process.kill(first.pid, 'SIGKILL');
  await first.client.close();
  const readAtKill = new Set(await lineReads(sb, sb.keys.live.key_id));
  const storedAtKill = storedLines(range);
  expect(storedAtKill.size, 'killed before the task was done').toBeLessThan(rows.length);

  // The same user starts the server again on the same file: the task is theirs, and its first poll takes it over
  // (the holder's process is gone from this machine: no staleness to wait out), then the new process finishes it.
  const second = await desktop();
  const polled = await second.ask('tasks/get', { taskId: handle.taskId });
  expect(polled.status, JSON.stringify(polled).slice(0, 600)).toBe('working');
  expect(holderPid(handle.taskId)).toBe(second.pid);
  const done = await untilSeen(
    'the new server finishes the task',
    async () => {
      const task = await second.ask('tasks/get', { taskId: handle.taskId });
      return task.status !== 'working' ? task : null;
    },
    90_000,
    200,
  );
  const a = wholeAnswer(done, rows);
  await expectReadOnceAcrossKill(sb, sb.keys.live.key_id, rows, { read: readAtKill, stored: storedAtKill });
  await expectProductSales(a, books, rows);
}, 180_000);
