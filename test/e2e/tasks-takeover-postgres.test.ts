// A task on two server processes sharing a Postgres mirror: made on one (a tools/call that opts into tasks),
// polled on the other (tasks/get), and the making process killed (SIGKILL) while it reads the lines. The other
// takes the task over once the holder's beat is stale (the test moves the last beat back, instead of waiting the
// staleness out) and finishes it from the lines already stored. The result equals the raw API's figures, and no
// invoice's lines are read twice, save one the killed process had read but not yet stored (in flight at the kill).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectProductSales, invoiced, issuedIn, type RawBooks, readRawBooks } from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { lastQuarter, lineReads } from './support/line-reads.js';
import { pacedLines } from './support/paced-lines.js';
import { type HttpServer, keyEnv, spawnHttpProcess } from './support/server.js';
import { expectReadOnceAcrossKill, wholeAnswer } from './support/taken-over.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';
import { untilSeen } from './support/until-seen.js';

const TODAY = '2027-03-15';

let sb: TestSandbox;
let books: RawBooks;
let db: pg.Client;
let url: string;
const servers: HttpServer[] = [];
const clients: TaskClient[] = [];
beforeAll(async () => {
  // 120 calls a quarter second: the task's 611 reads take seconds, long enough to kill its process in the middle.
  sb = await startTestSandbox({ scale: 10, today: TODAY, rateLimit: 120, rateWindowSeconds: 0.25 });
  books = await readRawBooks(sb.baseUrl, await sb.makeKey('live'));
  url = await postgresDatabase('tasks_takeover');
  db = new pg.Client({ connectionString: url });
  await db.connect();
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const s of servers) await s.close();
  await db?.end();
  await sb?.close();
});

/** Invoices of the range whose lines the mirror holds (matching their headers). */
async function storedLines(range: { from: string; to: string }): Promise<Set<number>> {
  const { rows } = await db.query(
    'SELECT id FROM invoicing_mcp.invoices WHERE lines_stamp = stamp AND issue_date >= $1 AND issue_date <= $2',
    [range.from, range.to],
  );
  return new Set(rows.map((r) => Number(r.id)));
}

it('made on one process, polled on the other, its maker killed mid-task: the other finishes it, exact, each line read once', async () => {
  const range = lastQuarter(TODAY);
  const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
  const env = keyEnv(sb, sb.keys.live);
  const maker = await spawnHttpProcess(['--mirror', url], env);
  servers.push(maker);
  const onMaker = await connectTaskClient(maker.url);
  clients.push(onMaker);
  const made = await onMaker.raw('tools/call', {
    name: 'report_sales',
    arguments: { range: 'last_quarter', group_by: 'product', limit: 400 },
  });
  if (made.kind !== 'result') throw new Error(JSON.stringify(made));
  const handle = made.result as Json;
  expect(handle.resultType, JSON.stringify(handle).slice(0, 400)).toBe('task');
  expect(handle.status).toBe('working');

  // The other process starts once the maker holds the mirror's lease (its background is the maker's alone).
  const other = await spawnHttpProcess(['--mirror', url], env);
  servers.push(other);
  const onOther = await connectTaskClient(other.url);
  clients.push(onOther);
  const seenOnOther = await untilSeen('the task polled on the other process reads lines', async () => {
    const got = await onOther.raw('tasks/get', { taskId: handle.taskId });
    const task = got.kind === 'result' ? (got.result as Json) : null;
    if (task && task.status !== 'working') throw new Error(`the task ended first: ${JSON.stringify(task).slice(0, 600)}`);
    return task && /^reading the lines of [1-9][\d,]* of 611 invoices/.test(task.statusMessage ?? '') ? task : null;
  });
  expect(seenOnOther.status).toBe('working');
  await untilSeen('a tenth of the lines stored', async () => ((await storedLines(range)).size >= rows.length / 10 ? true : null));

  await maker.crash();
  const readAtKill = new Set(await lineReads(sb, sb.keys.live.key_id));
  const storedAtKill = await storedLines(range);
  expect(storedAtKill.size, 'killed before the task was done').toBeLessThan(rows.length);
  // The staleness passed: the killed holder's last beat a minute back.
  await db.query('UPDATE invoicing_mcp.tasks SET beat_ms = beat_ms - 60000 WHERE id = $1', [handle.taskId]);

  // The rest of the lines take seconds alone; a machine shared with other test files can take several times that.
  const done = await untilSeen(
    'the other process finishes the task',
    async () => {
      const got = await onOther.raw('tasks/get', { taskId: handle.taskId });
      const task = got.kind === 'result' ? (got.result as Json) : null;
      return task && task.status !== 'working' ? task : null;
    },
    60_000,
  );
  const a = wholeAnswer(done, rows);
  await expectReadOnceAcrossKill(sb, sb.keys.live.key_id, rows, { read: readAtKill, stored: storedAtKill });

  for (const [id, items] of await pacedLines(
    books.session,
    rows.map((i) => i.id),
  ))
    books.lines.set(id, items);
  await expectProductSales(a, books, rows);
}, 90_000);
