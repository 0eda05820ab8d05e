// A draft round-trip on the service's two key modes: with a live key the draft and a new customer are
// saved and read back; with a test key they are validated and shown, but not saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { DRAFT } from './support/expect.js';
import { type HttpServer, keyEnv, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

let sandbox: TestSandbox;
let live: Connected;
let test: Connected;
let server: HttpServer;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  server = await spawnHttpServer([], keyEnv(sandbox, sandbox.keys.test));
  [live, test] = await Promise.all([
    connectClient('v2', { linked: await stdioHere([], keyEnv(sandbox, sandbox.keys.live)) }),
    connectClient('v1', { http: server.url }),
  ]);
});
afterAll(async () => {
  await Promise.all([live?.close(), test?.close()]);
  await server?.close();
  await sandbox?.close();
});

describe('with a live key (v2 over stdio)', () => {
  it('saves a draft invoice that get_invoice then reads back', async () => {
    const created = await live.client.callTool({
      name: 'create_draft_invoice',
      arguments: { ...DRAFT, idempotency_key: 'e2e-live-draft-1' },
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    const draft = created.structuredContent;
    expect(draft).toMatchObject({ status: 'draft', customer: { id: 1 }, subtotal: '50.00' });
    expect(textOf(created)).toContain('It is a draft: it has not been sent.');
    const read = await live.client.callTool({ name: 'get_invoice', arguments: { id: draft.id } });
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ id: draft.id, number: draft.number, status: 'draft', total: draft.total });
    expect(read.structuredContent.items.map((l: { description: string }) => l.description)).toEqual(['Labour, hours', 'Call-out']);
  });

  it('replays a create with the same idempotency key instead of duplicating it', async () => {
    const again = await live.client.callTool({
      name: 'create_draft_invoice',
      arguments: { ...DRAFT, idempotency_key: 'e2e-live-draft-1' },
    });
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(textOf(again)).toContain('no duplicate');
  });

  it('saves a customer that get_customer then reads back', async () => {
    const created = await live.client.callTool({ name: 'create_customer', arguments: { name: 'Live E2E Ltd', email: 'live@example.com' } });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(textOf(created)).toContain('Saved.');
    const read = await live.client.callTool({ name: 'get_customer', arguments: { id: created.structuredContent.id } });
    expect(read.structuredContent).toMatchObject({ name: 'Live E2E Ltd', email: 'live@example.com' });
  });
});

describe('with a test key (v1 over HTTP)', () => {
  it('shows the draft but does not save it', async () => {
    const created = await test.client.callTool({ name: 'create_draft_invoice', arguments: DRAFT });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ status: 'draft', subtotal: '50.00' });
    expect(textOf(created)).toMatch(/^Not saved: /);
    const read = await test.client.callTool({ name: 'get_invoice', arguments: { id: created.structuredContent.id } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toContain(`no invoice with id ${created.structuredContent.id}`);
  });

  it('shows the customer but does not save it', async () => {
    const created = await test.client.callTool({ name: 'create_customer', arguments: { name: 'Test E2E Ltd' } });
    expect(textOf(created)).toMatch(/^Not saved: /);
    const found = await test.client.callTool({ name: 'list_customers', arguments: { search: 'Test E2E' } });
    expect(found.structuredContent.data).toEqual([]);
  });
});
