// A task on two server processes sharing a Postgres mirror: made on one (a tools/call that opts into tasks),
// polled on the other (tasks/get), and the making process killed (SIGKILL) while it reads the lines. The other
// takes the task over once the holder's beat is stale (the test moves the last beat back, instead of waiting the
// staleness out) and finishes it from the lines already stored. The result equals the raw API's figures, and no
// invoice's lines are read twice, save one the killed process had read but not yet stored (in flight at the kill).
// Then a task whose database is lost under it (every connection ended, new ones refused until the process has
// noticed): it waits the loss out and ends exact, each invoice's lines read once (those read meanwhile kept).
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
  // The books read first, unpaced (the test's own reads never meet the window); then 120 calls a second: the
  // task's 611 reads take seconds, long enough to kill its process in the middle.
  sb = await startTestSandbox({ scale: 10, today: TODAY, rateLimit: 100_000, rateWindowSeconds: 1 });
  books = await readRawBooks(sb.baseUrl, await sb.makeKey('live'));
  const paced = await sb.admin('PUT', '/rate-limit', { limit: 120, window_seconds: 1 });
  expect(paced.status).toBe(200);
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

/** Invoices of the range whose lines the mirror holds (matching their headers), in the test's database or `on`. */
async function storedLines(range: { from: string; to: string }, on: pg.Client = db): Promise<Set<number>> {
  const { rows } = await on.query(
    'SELECT id FROM invoicing_mcp.invoices WHERE lines_stamp = stamp AND issue_date >= $1 AND issue_date <= $2',
    [range.from, range.to],
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** A process started on the mirror at `mirrorUrl`, and the task its client made there (last quarter's sales). */
async function taskOnNewProcess(mirrorUrl: string, env: Record<string, string>) {
  const maker = await spawnHttpProcess(['--mirror', mirrorUrl], env);
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
  return { maker, onMaker, handle };
}

it('made on one process, polled on the other, its maker killed mid-task: the other finishes it, exact, each line read once', async () => {
  const range = lastQuarter(TODAY);
  const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
  const env = keyEnv(sb, sb.keys.live);
  const { maker, handle } = await taskOnNewProcess(url, env);

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

/** The task's state as `client` sees it once it is no longer working. */
function untilEnded(client: TaskClient, taskId: string): Promise<Json> {
  return untilSeen(
    'the task ends',
    async () => {
      const got = await client.raw('tasks/get', { taskId });
      const task = got.kind === 'result' ? (got.result as Json) : null;
      return task && task.status !== 'working' ? task : null;
    },
    60_000,
  );
}

it('its database lost mid-task (every connection ended, new ones refused a while): the task still ends exact, each line read once', async () => {
  const range = lastQuarter(TODAY);
  const rows = books.invoices.filter((i) => invoiced(i) && issuedIn(i, range));
  // A key and a database of this case's own: its line reads counted apart, its mirror fresh.
  const key = await sb.makeKey('live');
  const lostUrl = await postgresDatabase('tasks_db_lost');
  const name = new URL(lostUrl).pathname.slice(1);
  // The server's own database (not the case's) for the test's statements that let it go and come back.
  const adminUrl = new URL(lostUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  let lostDb = new pg.Client({ connectionString: lostUrl });
  await lostDb.connect();
  try {
    const env = keyEnv(sb, key);
    const { maker, onMaker, handle } = await taskOnNewProcess(lostUrl, env);
    await untilSeen('a tenth of the lines stored', async () => ((await storedLines(range, lostDb)).size >= rows.length / 10 ? true : null));

    // The database goes away: new connections refused, every one open ended.
    const logged = maker.stderr().length;
    await lostDb.end();
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    const { rows: ended } = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    expect(ended.length, "the server's connections ended").toBeGreaterThan(0);
    await untilSeen('the maker notices its database gone', async () =>
      /terminat|ECONNREFUSED|not currently accepting|connection/i.test(maker.stderr().slice(logged)) ? true : null,
    );
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    lostDb = new pg.Client({ connectionString: lostUrl });
    await lostDb.connect();
    expect((await storedLines(range, lostDb)).size, 'the database came back before the task was done').toBeLessThan(rows.length);

    const done = await untilEnded(onMaker, handle.taskId);
    const a = wholeAnswer(done, rows);
    const reads = await lineReads(sb, key.key_id);
    const twice = [...new Set(reads.filter((id, n) => reads.indexOf(id) !== n))];
    expect(twice, 'invoices whose lines were read twice').toEqual([]);
    for (const i of rows) expect(reads, `invoice ${i.id} read`).toContain(i.id);
    if (books.lines.size < rows.length) {
      for (const [id, items] of await pacedLines(
        books.session,
        rows.map((i) => i.id),
      ))
        books.lines.set(id, items);
    }
    await expectProductSales(a, books, rows);
  } finally {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await lostDb.end().catch(() => undefined);
  }
}, 90_000);
