// A mirror on Postgres through a fault storm: the sandbox answers 500, drops connections and stalls at random
// while a server process makes its first sync of the small second business and people change the books
// (drafts made and sent, payments, stock movements, a quote accepted). Then the faults stop; once the mirror
// has caught up, every record of every kind in the database is the raw API's, field by field, lines too.

import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MIRRORED_KINDS } from '../../src/store/types.js';
import { type Json, listAll, type Session, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BusinessOps, businessOps } from './support/business-ops.js';
import { pacedLines } from './support/paced-lines.js';
import { type HttpServer, spawnHttpProcess } from './support/server.js';
import { untilSeen } from './support/until-seen.js';

/** A third of the calls faulted: half of those answered 500 or dropped, the rest slowed by 40 ms. */
const STORM = { rate: 0.3, kinds: ['500', 'reset', 'latency'], latencyMs: 40 };

let sb: TestSandbox;
let ops: BusinessOps;
let raw: Session;
let db: pg.Client;
let url: string;
let server: HttpServer | undefined;
beforeAll(async () => {
  // The service's shape, N calls a minute and 429 with Retry-After past it; the server paces its background to
  // a share of N a minute, so N is high enough for the small business's first sync to take seconds, not minutes.
  sb = await startTestSandbox({ rateLimit: 900, rateWindowSeconds: 60 });
  ops = await businessOps(sb, 2);
  // The test's own key of the business: its reads spend none of the server's calls.
  raw = await signIn(sb.baseUrl, await sb.makeKey('live', ALL_SCOPES, 2));
  url = await postgresDatabase('fault_storm');
  db = new pg.Client({ connectionString: url });
  await db.connect();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await db?.end();
  await ops?.close();
  await sb?.close();
});

/** Every field of every record of the database's `kind` that is not the raw API's, and records one side lacks. */
async function mismatches(kind: string, truth: Json[]): Promise<string[]> {
  const { rows } = await db.query(`SELECT id, raw FROM invoicing_mcp.${kind}`);
  const stored = new Map<number, Json>(rows.map((r) => [Number(r.id), JSON.parse(r.raw)]));
  const out: string[] = [];
  for (const record of truth) {
    const mine = stored.get(record.id);
    stored.delete(record.id);
    if (!mine) {
      out.push(`${kind} ${record.id}: not stored`);
      continue;
    }
    for (const field of new Set([...Object.keys(record), ...Object.keys(mine)])) {
      if (!isDeepStrictEqual(mine[field], record[field])) {
        out.push(`${kind} ${record.id}.${field}: stored ${JSON.stringify(mine[field])}, listed ${JSON.stringify(record[field])}`);
      }
    }
  }
  for (const id of stored.keys()) out.push(`${kind} ${id}: stored, not listed`);
  return out;
}

/** The raw API's books, every kind and every invoice's lines, read at the service's pace. */
async function readTruth(): Promise<{ records: Map<string, Json[]>; lines: Map<number, Json[]> }> {
  const records = new Map<string, Json[]>();
  for (const kind of MIRRORED_KINDS) {
    // A list read whole within the window, or again after it (a page refused with 429 fails the read).
    const list = await listAll(raw, `/api/v1/${kind}`).catch(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return listAll(raw, `/api/v1/${kind}`);
    });
    records.set(kind, list);
  }
  const invoices = records.get('invoices') ?? [];
  return {
    records,
    lines: await pacedLines(
      raw,
      invoices.map((i) => i.id),
    ),
  };
}

const LINE_FIELDS = ['description', 'quantity', 'unit_price', 'tax_amount', 'line_total', 'product_id'] as const;

/** Each invoice's stored lines against its items, in order, field by field. */
async function lineMismatches(truth: Map<number, Json[]>): Promise<string[]> {
  const { rows } = await db.query('SELECT * FROM invoicing_mcp.lines ORDER BY invoice_id, position');
  const out: string[] = [];
  for (const [id, items] of truth) {
    const mine = rows.filter((r) => Number(r.invoice_id) === id);
    if (mine.length !== items.length) out.push(`invoice ${id}: ${mine.length} lines stored, ${items.length} listed`);
    for (const [n, item] of items.entries()) {
      for (const field of LINE_FIELDS) {
        const stored = mine[n]?.[field] ?? null;
        const theirs = item[field] ?? null;
        if (String(stored) !== String(theirs)) out.push(`invoice ${id} line ${n}.${field}: stored ${stored}, listed ${theirs}`);
      }
    }
  }
  return out;
}

/** The database against the raw API's books: what differs (empty when equal). */
async function mirrorAgainst(truth: Awaited<ReturnType<typeof readTruth>>): Promise<string[]> {
  const out: string[] = [];
  for (const [kind, records] of truth.records) out.push(...(await mismatches(kind, records)));
  out.push(...(await lineMismatches(truth.lines)));
  return out;
}

/**
 * What people do meanwhile, through the admin interface (no faults there; the draft's create goes through them);
 * the draft's id.
 */
async function changeTheBooks(): Promise<number> {
  const draft = await ops.draftInvoice();
  await ops.sendInvoice(draft.id);
  await ops.pay(draft.id, '10.00');
  await ops.acceptQuote(await ops.openQuote());
  const product = await ops.productAboveReorder();
  await ops.dropToReorder(product);
  return draft.id;
}

it('after a fault storm through the first sync and updates, the mirror equals the raw API, field by field', async () => {
  await sb.faults(STORM.rate, STORM.kinds, STORM.latencyMs);
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: ops.key.key_id, SVC_SECRET: ops.key.secret, SVC_POLL_MS: '500' };
  server = await spawnHttpProcess(['--mirror', url], env);
  await changeTheBooks();
  // The first sync under the storm, every invoice's lines too; then more changes, found by polling under it.
  const stored = (sql: string) => async () => {
    const { rows } = await db.query(sql).catch(() => ({ rows: [{ n: -1 }] }));
    return rows[0].n;
  };
  const marks = stored('SELECT count(*)::int AS n FROM invoicing_mcp.marks');
  const linesMissing = stored('SELECT count(*)::int AS n FROM invoicing_mcp.invoices WHERE lines_stamp IS DISTINCT FROM stamp');
  await untilSeen(
    'the first sync stored every kind and every line',
    async () => ((await marks()) === MIRRORED_KINDS.length && (await linesMissing()) === 0 ? true : null),
    60_000,
    200,
  );
  const newest = await changeTheBooks();
  const newestStored = stored(`SELECT count(*)::int AS n FROM invoicing_mcp.invoices WHERE id = ${newest} AND lines_stamp = stamp`);
  await untilSeen(
    'the newest draft and its lines stored, under the storm',
    async () => ((await newestStored()) === 1 ? true : null),
    60_000,
    200,
  );
  // The service's log: calls answered 500 or dropped (a fault comes before the key is known, so none names it).
  const faulted = (await sb.requests()).filter((r) => r.status === 500 || r.error?.includes('injected fault')).length;
  await sb.clearFaults();

  const truth = await readTruth();
  let last: string[] = [];
  await untilSeen(
    'the mirror caught up with the raw API',
    async () => {
      last = await mirrorAgainst(truth).catch((err: Error) => [err.message]);
      return last.length === 0 ? true : null;
    },
    60_000,
    500,
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; still different:\n${last.filter((l) => !l.includes(' line ')).join('\n')}\n${server?.stderr().slice(-6000)}`,
    );
  });
  expect(await mirrorAgainst(truth)).toEqual([]);
  expect(truth.records.get('invoices')?.length, 'the books read').toBeGreaterThan(10);
  expect(faulted, 'calls the storm answered 500 or dropped').toBeGreaterThan(5);
  expect(server.stderr()).not.toMatch(/uncaught|unhandled/i);
}, 150_000);
