// One create, the same `idempotency_key`, sent at once to two server processes on one Postgres (a client
// retrying on another replica): two `--http` processes on one mirror, and two hosted processes with a business
// signed in. Exactly one invoice per key in the raw API's books, both answers naming it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { get, listAll, type Session, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { connected, startAttackedDeployment } from './support/attacked-deployment.js';
import { type Connected, connectClient, type McpClient, textOf } from './support/clients.js';
import { DRAFT } from './support/expect.js';
import { type HttpServer, keyEnv, spawnHttpProcess } from './support/server.js';

/** How many keys are raced, each sent to both processes at once. */
const RACES = 6;

let sb: TestSandbox;
const servers: HttpServer[] = [];
const clients: Connected[] = [];
beforeAll(async () => {
  // The service's pace, 20 calls per 5 s: the races' creates and reads fit, and a 429 in them is waited out.
  sb = await startTestSandbox({ rateLimit: 20, rateWindowSeconds: 5 });
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

/**
 * RACES creates, each key sent through both clients at once, with creates applied and their answers lost now
 * and then (each process retries with the same key); then the raw API's books hold one invoice per key.
 */
async function raceCreates(sandbox: TestSandbox, raw: Session, both: McpClient[]): Promise<void> {
  const customer = (await listAll(raw, '/api/v1/customers?status=active'))[0].id as number;
  const before = await listAll(raw, '/api/v1/invoices');
  const made: number[] = [];
  await sandbox.faults(0.25, ['reset_after']);
  for (let race = 0; race < RACES; race++) {
    const idempotency_key = `two-processes-${race}`;
    // Each race its own call-out price, so each key's invoice is told by its subtotal.
    const items = [DRAFT.items[0], { ...DRAFT.items[1], unit_price: `${10 + race}.00` }];
    const args = { customer_id: customer, items, idempotency_key };
    const answers = await Promise.all(both.map((c) => c.callTool({ name: 'create_draft_invoice', arguments: args })));
    for (const a of answers) expect(a.isError, textOf(a)).toBeFalsy();
    const ids = answers.map((a) => a.structuredContent.id);
    expect(ids[1], `both answers of ${idempotency_key} name one invoice`).toBe(ids[0]);
    made.push(ids[0]);
  }
  await sandbox.clearFaults();

  const known = new Set(before.map((i) => i.id));
  const added = (await listAll(raw, '/api/v1/invoices')).filter((i) => !known.has(i.id));
  expect(added.map((i) => i.id).sort((a, b) => a - b)).toEqual([...made].sort((a, b) => a - b));
  expect(new Set(made).size, 'each key its own invoice').toBe(RACES);
  for (const [race, id] of made.entries()) {
    const read = await get(raw, `/api/v1/invoices/${id}`);
    expect(read.body.data, `race ${race}`).toMatchObject({ status: 'draft', customer: { id: customer }, subtotal: `${50 + race}.00` });
  }
}

it('one idempotency key sent to two --http processes on one mirror at once makes one invoice', async () => {
  const raw = await signIn(sb.baseUrl, await sb.makeKey('live'));
  await raceCreates(
    sb,
    raw,
    clients.map((c) => c.client),
  );
}, 90_000);

it('one idempotency key sent to two hosted processes at once makes one invoice', async () => {
  const deployment = await startAttackedDeployment();
  try {
    const business = await deployment.signInBusiness('Idempotent Ltd');
    const both = await Promise.all(deployment.servers.map((s) => connected(business, s)));
    try {
      const raw = await signIn(deployment.sb.baseUrl, { key_id: business.signer.keyId, secret: business.signer.secret });
      await raceCreates(deployment.sb, raw, both as unknown as McpClient[]);
    } finally {
      for (const c of both) await c.close().catch(() => undefined);
    }
  } finally {
    await deployment.close();
  }
}, 120_000);
