// Tasks on a hosted server belong to the grant they were made under: another tenant's grant neither reads nor
// cancels one (the answer is the same as for a task that does not exist), and its own grant's tasks/cancel stops
// the service calls the task was making within a second (measured at the sandbox, on the service's clock).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { codeFor, codeForm, tokenRequest } from './support/pkce-flow.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';

const TODAY = '2027-03-15';

let sb: TestSandbox;
let server: HostedServer;
const clients: TaskClient[] = [];
beforeAll(async () => {
  sb = await startTestSandbox({ scale: 10, today: TODAY, rateLimit: 120, rateWindowSeconds: 0.25 });
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('tasks_owners'), vaultKey: newVaultKey() });
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.close();
  await sb?.close();
});

/** A client of the tenant of this key, signed in and allowed through the server's own authorization flow. */
async function tenantClient(key: { key_id: string; secret: string }): Promise<TaskClient> {
  const held = await codeFor(server, { keyId: key.key_id, secret: key.secret });
  const tokens = await tokenRequest(server.origin, codeForm(held, server));
  expect(tokens.status).toBe(200);
  const client = await connectTaskClient(server.url, tokens.body.access_token);
  clients.push(client);
  return client;
}

/** The answered reads of invoices' lines by this key, with the service's time of each. */
async function lineReadTimes(keyId: string): Promise<number[]> {
  return (await sb.requests(keyId))
    .filter((r) => r.method === 'GET' && r.status === 200 && /^\/api\/v1\/invoices\/\d+$/.test(r.path))
    .map((r) => Date.parse(r.at));
}

it("a tenant's task is not another tenant's to read or cancel; its own cancel stops its service calls within a second", async () => {
  const mine = await tenantClient(sb.keys.live);
  const theirs = await tenantClient(await sb.makeKey('live', ALL_SCOPES, 2));
  const made = await mine.raw('tools/call', { name: 'report_sales', arguments: { range: 'last_year', group_by: 'product' } });
  if (made.kind !== 'result') throw new Error(JSON.stringify(made));
  const handle = made.result as Json;
  expect(handle.resultType, JSON.stringify(handle).slice(0, 400)).toBe('task');

  for (const method of ['tasks/get', 'tasks/cancel']) {
    const refused = await theirs.raw(method, { taskId: handle.taskId });
    expect(refused.kind, `${method} with another tenant's grant`).toBe('error');
    expect(JSON.stringify(refused)).toContain(`No task ${handle.taskId}: it is unknown, expired, or not yours`);
  }
  const unknown = await mine.raw('tasks/get', { taskId: '0f1e2d3c-0000-4000-8000-000000000000' });
  expect(JSON.stringify(unknown)).toContain('it is unknown, expired, or not yours');

  // Its own grant: the task is at work, reading lines; then cancelled.
  for (let seen = await mine.raw('tasks/get', { taskId: handle.taskId }); ; seen = await mine.raw('tasks/get', { taskId: handle.taskId })) {
    const task = seen.kind === 'result' ? (seen.result as Json) : null;
    expect(task?.status, JSON.stringify(seen).slice(0, 400)).toBe('working');
    if ((await lineReadTimes(sb.keys.live.key_id)).length >= 20) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cancelled = await mine.raw('tasks/cancel', { taskId: handle.taskId });
  expect(cancelled.kind, JSON.stringify(cancelled)).toBe('result');
  const answeredAt = Date.parse((await sb.clock()).now);
  const after = await mine.raw('tasks/get', { taskId: handle.taskId });
  expect(after.kind === 'result' && (after.result as Json).status).toBe('cancelled');
  const again = await mine.raw('tasks/cancel', { taskId: handle.taskId });
  expect(JSON.stringify(again)).toContain('has ended (cancelled)');

  // A second and a half on the service's clock: no read of lines began more than a second after the cancel.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const reads = await lineReadTimes(sb.keys.live.key_id);
  expect(reads.filter((at) => at > answeredAt + 1_000)).toEqual([]);
  expect(reads.length).toBeGreaterThanOrEqual(20);
}, 90_000);
