// One create, the same `idempotency_key`, sent at once to two server processes on one Postgres mirror (a client
// retrying on another replica): exactly one invoice per key in the raw API's books, both answers naming it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { get, listAll, type Session, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { DRAFT } from './support/expect.js';
import { type HttpServer, keyEnv, spawnHttpProcess } from './support/server.js';

/** How many keys are raced, each sent to both processes at once. */
const RACES = 6;

let sb: TestSandbox;
let raw: Session;
const servers: HttpServer[] = [];
const clients: Connected[] = [];
beforeAll(async () => {
  // The service's pace, 20 calls per 5 s: the races' creates and reads fit, and a 429 in them is waited out.
  sb = await startTestSandbox({ rateLimit: 20, rateWindowSeconds: 5 });
  raw = await signIn(sb.baseUrl, await sb.makeKey('live'));
  const url = await postgresDatabase('creates_one_key');
  const env = keyEnv(sb, sb.keys.live);
  for (let i = 0; i < 2; i++) {
    const server = await spawnHttpProcess(['--mirror', url], env);
    servers.push(server);
    clients.push(await connectClient('v2', { http: server.url }));
  }
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const s of servers) await s.close();
  await sb?.close();
});

it('one idempotency key sent to two processes at once makes one invoice', async () => {
  const before = await listAll(raw, '/api/v1/invoices');
  const made = new Map<string, number>();
  // A create applied and its answer lost, now and then: each process retries with the same key.
  await sb.faults(0.25, ['reset_after']);
  for (let race = 0; race < RACES; race++) {
    const idempotency_key = `two-processes-${race}`;
    // Each race its own call-out price, so each key's invoice is told by its subtotal.
    const items = [DRAFT.items[0], { ...DRAFT.items[1], unit_price: `${10 + race}.00` }];
    const args = { ...DRAFT, items, idempotency_key };
    const answers = await Promise.all(clients.map((c) => c.client.callTool({ name: 'create_draft_invoice', arguments: args })));
    for (const a of answers) expect(a.isError, textOf(a)).toBeFalsy();
    const ids = answers.map((a) => a.structuredContent.id);
    expect(ids[1], `both answers of ${idempotency_key} name one invoice`).toBe(ids[0]);
    made.set(idempotency_key, ids[0]);
  }

  await sb.clearFaults();
  const after = await listAll(raw, '/api/v1/invoices');
  const known = new Set(before.map((i) => i.id));
  const added = after.filter((i) => !known.has(i.id));
  expect(added.map((i) => i.id).sort((a, b) => a - b)).toEqual([...made.values()].sort((a, b) => a - b));
  expect(new Set(made.values()).size, 'each key its own invoice').toBe(RACES);
  for (const [race, id] of [...made.values()].entries()) {
    const read = await get(raw, `/api/v1/invoices/${id}`);
    expect(read.body.data, `race ${race}`).toMatchObject({ status: 'draft', subtotal: `${50 + race}.00` });
  }
}, 90_000);
