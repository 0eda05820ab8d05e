// Isolation of businesses in one server: two units whose books hold the same record ids with different
// figures (the live and the test books of the sandbox's small business: one sequence of ids, and a payment
// made in the live books only), and a third whose key was revoked. Caches, mirror rows, resources and
// subscriptions of one never reach a call for the other; the refused one is named as refused and refuses
// only its own calls; the id both share is refused as ambiguous.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawBooks, readRawBooks, receivable, same, tally } from '../answers/ground-truth.js';
import type { Json } from '../contract/sandbox-http.js';
import { Exact } from '../support/exact.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type BusinessOps, businessOps } from './support/business-ops.js';
import { businessesFile } from './support/businesses-file.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { untilRounds } from './support/poll-rounds.js';
import { type StdioHere, stdioHere } from './support/stdio-here.js';

const SMALL = 2;
const INTERVAL_MS = 200;
const LISTS = ['invoices', 'payments', 'quotes', 'products'].map((kind) => `/api/v1/${kind}`);

let sandbox: TestSandbox;
let ops: BusinessOps;
let mcp: Connected;
let here: StdioHere;
let live: KeyPair;
let test: KeyPair;
let shared: Json;
const raw = new Map<string, RawBooks>();
const updated: string[] = [];

const uri = (business: string, id: number) => `invoicing://${encodeURIComponent(business)}/invoices/${id}`;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rateLimit: 60_000, rateWindowSeconds: 60 });
  ops = await businessOps(sandbox, SMALL);
  live = await sandbox.makeKey('live', ALL_SCOPES, SMALL);
  test = await sandbox.makeKey('test', ALL_SCOPES, SMALL);
  const gone = await sandbox.makeKey('live', ALL_SCOPES, SMALL);
  await sandbox.admin('DELETE', `/keys/${gone.key_id}`);
  // An invoice both books hold under one id; paid in part in the live books only, before the server reads either.
  const before = await readRawBooks(sandbox.baseUrl, live);
  shared = before.invoices.find((i: Json) => receivable(i) && Exact.of(i.balance).greaterThan('10.00'));
  await ops.pay(shared.id, '5.00');
  raw.set('Small', await readRawBooks(sandbox.baseUrl, live));
  raw.set('Small test', await readRawBooks(sandbox.baseUrl, test));
  const entries = [
    { name: 'Small', base_url: sandbox.baseUrl, key_id: live.key_id, secret: live.secret },
    { name: 'Small test', base_url: sandbox.baseUrl, key_id: test.key_id, secret: test.secret },
    { name: 'Gone', base_url: sandbox.baseUrl, key_id: gone.key_id, secret: gone.secret },
  ];
  const file = businessesFile(entries);
  here = await stdioHere(['--businesses', file], { SVC_POLL_MS: String(INTERVAL_MS) });
  mcp = await connectClient('v2', { linked: here });
  mcp.client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await ops?.close();
  await sandbox?.close();
});

const call = (name: string, args: Record<string, unknown>) => mcp.client.callTool({ name, arguments: args });

describe('two businesses with the same record ids, and one refused', () => {
  it('reads the shared id as each business has it, whichever was read (and cached) first', async () => {
    const [testFirst, liveAfter] = [
      await call('get_invoice', { business: 'Small test', id: shared.id }),
      await call('get_invoice', { business: 'Small', id: shared.id }),
    ];
    const truth = (name: string) => (raw.get(name) as RawBooks).invoices.find((i: Json) => i.id === shared.id);
    expect(testFirst.structuredContent.balance).toBe(truth('Small test').balance);
    expect(liveAfter.structuredContent.balance).toBe(truth('Small').balance);
    expect(same(truth('Small test').balance, Exact.of(truth('Small').balance).plus('5.00'))).toBe(true);
    const resources = await Promise.all(['Small', 'Small test'].map((b) => mcp.client.readResource({ uri: uri(b, shared.id) })));
    expect(resources.map((r) => JSON.parse(r.contents[0]?.text as string).balance)).toEqual([
      truth('Small').balance,
      truth('Small test').balance,
    ]);
  });

  it('answers report_owed for "all" from each business\'s own mirror rows, and names the refused one', async () => {
    const answer = await call('report_owed', { business: 'all' });
    const { businesses, answered } = answer.structuredContent;
    expect(answered).toBe(2);
    expect(textOf(answer)).toMatch(/2 of 3 businesses answered; refused: Gone/);
    expect(businesses.find((b: Json) => b.business === 'Gone')).toMatchObject({ status: 'refused' });
    for (const name of ['Small', 'Small test']) {
      const section = businesses.find((b: Json) => b.business === name);
      const truth = tally(
        (raw.get(name) as RawBooks).invoices.filter(receivable),
        (i) => i.currency,
        (i) => i.balance,
      );
      for (const c of section.answer.currencies)
        expect(same(c.balance, (truth.get(c.currency) as { sum: Exact }).sum), `${name} ${c.currency}`).toBe(true);
    }
    // Only the refused business's own calls are refused, and the log says whose they were.
    expect((await call('list_customers', { business: 'Gone' })).isError).toBe(true);
    expect(here.stderr()).toContain('"business":"Gone"');
    for (const secret of [live.secret, test.secret, ...sandbox.secrets]) expect(here.stderr()).not.toContain(secret);
    expect((await call('list_customers', { business: 'Small' })).isError).toBeFalsy();
  });

  it('refuses the business id the two share, listing the names', async () => {
    const id = (raw.get('Small') as RawBooks).session.signIn.business.id;
    const refused = await call('list_customers', { business: String(id) });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('names more than one business');
    expect(textOf(refused)).toMatch(/"Small", "Small test", "Gone"/);
  });

  it("tells a subscription of one business's record of its change only, not the other's record of the same id", async () => {
    const watched = [uri('Small', shared.id), uri('Small test', shared.id)];
    const listening = await mcp.client.listen({ resourceSubscriptions: watched });
    try {
      await Promise.all([untilRounds(sandbox, live.key_id, LISTS, 2), untilRounds(sandbox, test.key_id, LISTS, 2)]);
      const since = updated.length;
      await ops.pay(shared.id, '1.00');
      const changedAt = Date.now();
      // Both mirrors have polled again since the change: the test books' mirror had its chance to (wrongly) hear it.
      await Promise.all([untilRounds(sandbox, live.key_id, LISTS, 2, changedAt), untilRounds(sandbox, test.key_id, LISTS, 2, changedAt)]);
      const heard = updated.slice(since);
      expect(heard).toContain(uri('Small', shared.id));
      expect(heard).not.toContain(uri('Small test', shared.id));
    } finally {
      await listening.close();
    }
  });
});
