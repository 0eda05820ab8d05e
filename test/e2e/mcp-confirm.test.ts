// --confirm-writes: before a create, the user sees a summary (customer, lines, total) and confirms it;
// through an input_required result on 2026-07-28 and an elicitation request on 2025-11-25 (over stdio, and
// over HTTP in the session a 2025-era client opens with initialize). Declined means nothing is created; a
// client that cannot ask gets a clear refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, type ElicitAnswer, textOf } from './support/clients.js';
import { DRAFT } from './support/expect.js';
import { type Env, type HttpServer, keyEnv, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const ACCEPT: ElicitAnswer = { action: 'accept', content: { confirm: true } };
const DECLINE: ElicitAnswer = { action: 'decline' };

let sandbox: TestSandbox;
let env: Env;
let server: HttpServer;
let answer: ElicitAnswer = ACCEPT;
const elicit = (): ElicitAnswer => answer;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  env = keyEnv(sandbox, await sandbox.makeKey('live'));
  server = await spawnHttpServer(['--confirm-writes'], env);
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

const customersNamed = async (c: Connected, name: string): Promise<unknown[]> =>
  (await c.client.callTool({ name: 'list_customers', arguments: { search: name } })).structuredContent.data;
const invoicePosts = async (): Promise<number> =>
  (await sandbox.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/invoices').length;

describe('the v2 client on 2026-07-28 (stdio)', () => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient('v2', { linked: await stdioHere(['--confirm-writes'], env) }, { elicit });
  });
  afterAll(() => c?.close());

  it('is asked through an input_required result naming the customer, and accepting creates it', async () => {
    answer = ACCEPT;
    const created = await c.client.callTool({
      name: 'create_customer',
      arguments: { name: 'Confirmed Modern Ltd', email: 'cm@example.com' },
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(c.elicitations.at(-1)?.message).toContain('Create customer "Confirmed Modern Ltd" <cm@example.com>?');
    expect(c.received.some((m) => m.result?.resultType === 'input_required' && m.result.inputRequests?.confirm)).toBe(true);
    expect(c.received.some((m) => m.method === 'elicitation/create')).toBe(false);
    expect(await customersNamed(c, 'Confirmed Modern')).toHaveLength(1);
  });

  it('declining creates nothing', async () => {
    answer = DECLINE;
    const result = await c.client.callTool({ name: 'create_customer', arguments: { name: 'Declined Modern Ltd' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Not created: the user did not confirm. Nothing was saved.');
    expect(await customersNamed(c, 'Declined Modern')).toEqual([]);
  });
});

describe('the v1 client on 2025-11-25 (stdio)', () => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient('v1', { linked: await stdioHere(['--confirm-writes'], env) }, { elicit });
  });
  afterAll(() => c?.close());

  it('is asked through an elicitation request with the customer, the lines and the total', async () => {
    answer = ACCEPT;
    const created = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ status: 'draft', subtotal: '50.00' });
    const message = c.elicitations.at(-1)?.message ?? '';
    expect(message).toContain('Rangitoto Builders Co');
    expect(message).toContain('2 x Labour, hours @ 20.00 = 40.00');
    expect(message).toContain('1 x Call-out @ 10.00 = 10.00');
    expect(message).toContain('Subtotal 50.00');
    expect(c.received.some((m) => m.method === 'elicitation/create')).toBe(true);
  });

  it('declining creates nothing: the service never sees the create', async () => {
    answer = DECLINE;
    const before = await invoicePosts();
    const result = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('the user did not confirm');
    expect(await invoicePosts()).toBe(before);
  });
});

describe('the v2 client on 2026-07-28 (HTTP)', () => {
  it('is asked through an input_required result, and accepting creates the draft', async () => {
    const c = await connectClient('v2', { http: server.url }, { elicit });
    try {
      answer = ACCEPT;
      const created = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
      expect(created.isError, textOf(created)).toBeFalsy();
      expect(c.elicitations.at(-1)?.message).toContain('Subtotal 50.00');
      expect(c.received.some((m) => m.result?.resultType === 'input_required')).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('the v1 client on 2025-11-25 (HTTP, in its session)', () => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient('v1', { http: server.url }, { elicit });
  });
  afterAll(() => c?.close());

  it('is asked through an elicitation request, and accepting creates the draft', async () => {
    answer = ACCEPT;
    const created = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(c.elicitations.at(-1)?.message).toContain('Subtotal 50.00');
    expect(c.received.some((m) => m.method === 'elicitation/create')).toBe(true);
  });

  it('declining creates nothing', async () => {
    answer = DECLINE;
    const before = await invoicePosts();
    const result = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
    expect(textOf(result)).toContain('the user did not confirm');
    expect(await invoicePosts()).toBe(before);
  });
});

describe('clients that cannot ask', () => {
  /** Calls a create on a fresh client and returns the refusal's text, after checking the service saw no create. */
  async function refused(connect: () => Promise<Connected>): Promise<string> {
    const c = await connect();
    try {
      const before = await invoicePosts();
      const result = await c.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
      expect(result.isError).toBe(true);
      expect(await invoicePosts()).toBe(before);
      return textOf(result);
    } finally {
      await c.close();
    }
  }

  it('the v2 client over HTTP without elicitation gets a clear refusal', async () => {
    const text = await refused(() => connectClient('v2', { http: server.url }));
    expect(text).toMatch(/^Not created: .*--confirm-writes.*this client cannot ask \(it has no elicitation support\)/);
  });

  it('the v1 client over stdio without elicitation gets a clear refusal', async () => {
    const text = await refused(async () => connectClient('v1', { linked: await stdioHere(['--confirm-writes'], env) }));
    expect(text).toMatch(/^Not created: .*--confirm-writes.*this client cannot ask \(it has no elicitation support\)/);
  });

  it('the v1 client over HTTP without elicitation gets a clear refusal', async () => {
    const text = await refused(() => connectClient('v1', { http: server.url }));
    expect(text).toMatch(/^Not created: .*--confirm-writes.*this client cannot ask \(it has no elicitation support\)/);
  });
});
