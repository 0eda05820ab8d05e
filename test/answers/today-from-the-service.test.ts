// Today from the service, always: the server follows the service's clock from every answer's Date header, so
// when the sandbox's clock is moved past the business's midnight, the answers' today, as-of and days past due
// move with it, with no new sign-in. Asked through a real MCP client of the built server; the ground truth is
// the sandbox's raw API and its admin clock, worked out by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { type Connected, connectClient } from '../e2e/support/clients.js';
import { keyEnv } from '../e2e/support/server.js';
import { type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { ageBand, answerOf, daysFrom, plus, readRawBooks, receivable, same, tally } from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';

const TODAY = '2027-03-15';
const ZONE = 'Pacific/Auckland';

let sb: TestSandbox;
let key: KeyPair;
let mcp: Connected;

const ask = (name: string, args: Record<string, unknown> = {}): Promise<Json> => answerOf(mcp.client, name, args);

/** Seconds from the sandbox's clock to `hh:mm` of its business day, in the business's zone. */
async function secondsUntil(hh: number, mm: number): Promise<number> {
  const { now } = await sb.clock();
  const wall = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    .format(new Date(now))
    .split(':')
    .map(Number) as [number, number, number];
  return hh * 3600 + mm * 60 - (wall[0] * 3600 + wall[1] * 60 + wall[2]);
}

/** The figures report_owed should give on `today`, from the raw books as they are now. */
async function owedTruth(today: string) {
  const books = await readRawBooks(sb.baseUrl, sb.keys.live);
  const owing = books.invoices.filter(receivable);
  const dueOf = new Map(owing.map((i) => [i.id, i.due_date as string]));
  const bands = tally(
    owing,
    (i) => `${i.currency} ${ageBand(daysFrom(i.due_date, today))}`,
    (i) => i.balance,
  );
  return { dueOf, bands };
}

function expectOwed(a: Json, today: string, truth: Awaited<ReturnType<typeof owedTruth>>): void {
  expect(a.today).toBe(today);
  expect(a.as_of.slice(0, 10)).toBe(today);
  for (const i of a.invoices) expect(i.days_past_due, i.number).toBe(Math.max(0, daysFrom(truth.dueOf.get(i.id)!, today)));
  for (const c of a.currencies)
    for (const band of ['not_due', '1_30', '31_60', '61_90', 'over_90']) {
      const t = truth.bands.get(`${c.currency} ${band}`);
      expect([c.aged[band].count, same(c.aged[band].balance, t?.sum ?? 0)], `${c.currency} ${band}`).toEqual([t?.count ?? 0, true]);
    }
}

beforeAll(async () => {
  sb = await startTestSandbox({ today: TODAY, rateLimit: 1_000_000 });
  key = await sb.makeKey('live');
  // Five minutes to midnight in the business's zone: the session signed in now outlives the midnight.
  await sb.advanceClock(await secondsUntil(23, 55));
  // No background rounds: every read is the answer's own.
  mcp = await connectClient('v2', {
    linked: await startInProcessServer({ ...keyEnv(sb, key), SVC_POLL_SECONDS: '0' }, { mirror: 'memory' }),
  });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

describe("the service's clock moved past midnight between sign-ins", () => {
  it('moves today, as-of and days past due in the next answers, without signing in again', async () => {
    const before = await ask('report_owed', { limit: 200 });
    expectOwed(before, TODAY, await owedTruth(TODAY));
    expect(before.as_of).toMatch(/^2027-03-15T23:5\d:\d\d\+13:00$/);
    expect(await sb.signIns(key.key_id)).toHaveLength(1);

    await sb.advanceClock(10 * 60);
    const tomorrow = plus(TODAY, 1);
    const moved = Date.parse((await sb.clock()).now);
    // The first answer after the move reads a kind not yet read: its as-of is the service's new time.
    const received = await ask('report_received', { days: 1 });
    expect([received.today, received.from, received.to]).toEqual([tomorrow, tomorrow, tomorrow]);
    expect(Date.parse(received.as_of)).toBeGreaterThanOrEqual(moved - 1000);
    expect(Date.parse(received.as_of)).toBeLessThanOrEqual(Date.parse((await sb.clock()).now) + 1000);

    // The invoices were read moments ago by our clock, but ten minutes ago by the service's: read again.
    const after = await ask('report_owed', { limit: 200 });
    expectOwed(after, tomorrow, await owedTruth(tomorrow));
    expect(Date.parse(after.as_of)).toBeGreaterThanOrEqual(moved - 1000);
    const overdue = after.invoices.filter((i: Json) => i.days_past_due > 0);
    expect(overdue.length).toBeGreaterThan(0);
    const first = new Map(before.invoices.map((i: Json) => [i.id, i.days_past_due]));
    for (const i of overdue) if (first.has(i.id)) expect(i.days_past_due, i.number).toBe(Math.max(0, first.get(i.id) as number) + 1);
    expect(await sb.signIns(key.key_id)).toHaveLength(1);
  });
});
