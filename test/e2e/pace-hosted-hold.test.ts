// Hosted, while the key's window is held by a 429: the key's confirmation (a ping at most every 30 s) never
// makes a call or a poll wait behind the hold. A task spends a 60 s window of 30 calls in a second; once
// the key's last confirmation is over 30 s old, a tasks/get, a get_invoice and an answer the mirror holds
// answer at once.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { codeFor, codeForm, tokenRequest } from './support/pkce-flow.js';
import { connectTaskClient, type TaskClient } from './support/task-client.js';

let sb: TestSandbox;
let server: HostedServer;
let client: TaskClient | undefined;
beforeAll(async () => {
  sb = await startTestSandbox({ scale: 4, today: '2027-03-15', rateLimit: 30, rateWindowSeconds: 60 });
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('pace_hosted_hold'), vaultKey: newVaultKey() });
}, 60_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await server?.close();
  await sb?.close();
});

/** Prompt: well under the person's 10 s wait for the window, and the hold's 20 s and more left. */
const PROMPT_MS = 2_000;

const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const t0 = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t0 };
};

it('during a rate hold, with the key confirmed over 30 s ago, a tasks/get, a get_invoice and an answer from the mirror answer at once', async () => {
  const key = sb.keys.live;
  const held = await codeFor(server, { keyId: key.key_id, secret: key.secret });
  const tokens = await tokenRequest(server.origin, codeForm(held, server));
  expect(tokens.status).toBe(200);
  client = await connectTaskClient(server.url, tokens.body.access_token);
  const made = await client.raw('tools/call', { name: 'report_sales', arguments: { range: 'last_year', group_by: 'product' } });
  const handle = (made.kind === 'result' ? made.result : {}) as Json;
  expect(handle.resultType, JSON.stringify(made).slice(0, 400)).toBe('task');

  // The task spends the window, and the key is held; its last accepted call ages past the 30 s confirmation.
  const log = async () => sb.requests(key.key_id);
  for (let look = 0; !(await log()).some((r) => r.status === 429); look++) {
    if (look > 400) throw new Error('the task never met the limit');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const lastAccepted = Math.max(...(await log()).filter((r) => r.status === 200).map((r) => Date.parse(r.at)));
  const serviceNow = Date.parse((await sb.clock()).now);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastAccepted + 31_000 - serviceNow)));

  const polled = await timed(() => client!.raw('tasks/get', { taskId: handle.taskId }));
  expect(polled.value.kind, JSON.stringify(polled.value).slice(0, 400)).toBe('result');
  const task = (polled.value as { result: Json }).result;
  expect(task.status).toBe('working');
  expect(task.statusMessage).toMatch(/^waiting for the key's limit: resumes in \d+ s \(30 calls a minute\)$/);
  expect(polled.ms).toBeLessThan(PROMPT_MS);

  const invoice = await timed(() => client!.client.callTool({ name: 'get_invoice', arguments: { id: 1 } }));
  expect(invoice.ms).toBeLessThan(PROMPT_MS);
  // The window is the task's: the person is told when to retry, and whose calls spent it.
  const text = (invoice.value.content as { text: string }[])[0]!.text;
  expect(invoice.value.isError, text).toBe(true);
  expect(text).toMatch(/Retry after \d+ seconds/);
  expect(text).toMatch(/This window's calls here: \d+ calls? you asked for, \d+ for tasks, \d+ the server's own reading of the books\./);
  // An answer whose books the mirror holds answers from them, saying why and as of when.
  const plain = new Client({ name: 'plain', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const auth = { requestInit: { headers: { authorization: `Bearer ${tokens.body.access_token}` } } };
  await plain.connect(new StreamableHTTPClientTransport(new URL(server.url), auth));
  const owed = await timed(() => plain.callTool({ name: 'report_sales', arguments: { range: 'last_year', group_by: 'status' } }));
  await plain.close();
  const owedText = (owed.value.content as { text: string }[])[0]!.text;
  expect(owed.value.isError, owedText).toBeFalsy();
  expect((owed.value.structuredContent as Json).warning).toMatch(
    /^the service's rate limit is reached \(retry after \d+ seconds?\), so this answer is from the mirror as of /,
  );
  expect(owed.ms).toBeLessThan(PROMPT_MS);
  // Nothing was sent into the hold: the key met one 429, the task's probe.
  expect((await log()).filter((r) => r.status === 429)).toHaveLength(1);
}, 120_000);
