// Over HTTP every request gets its own server instance, but all share one service client: many clients
// calling at once sign in once, and a record read twice is fetched once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { type HttpServer, keyEnv, spawnHttpServer } from './support/server.js';

let sandbox: TestSandbox;
let key: KeyPair;
let server: HttpServer;
let clients: Connected[];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await sandbox.makeKey('live');
  server = await spawnHttpServer([], keyEnv(sandbox, key));
  clients = await Promise.all([
    connectClient('v2', { http: server.url }),
    connectClient('v1', { http: server.url }),
    connectClient('v2', { http: server.url }),
  ]);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close();
  await sandbox?.close();
});

describe('one service client behind every HTTP request', () => {
  it('signs in once for many concurrent calls from several clients', async () => {
    const calls = clients.flatMap((c) => [1, 2, 3, 4].map((id) => c.client.callTool({ name: 'get_invoice', arguments: { id } })));
    const results = await Promise.all(calls);
    for (const r of results) expect(r.isError, textOf(r)).toBeFalsy();
    const signIns = await sandbox.signIns(key.key_id);
    expect(signIns.map((s) => s.status)).toEqual([201]);
  });

  it('serves a record read again from its cache', async () => {
    const reads = async (): Promise<number> => (await sandbox.requests(key.key_id)).filter((r) => r.path === '/api/v1/customers/3').length;
    await clients[0]!.client.callTool({ name: 'get_customer', arguments: { id: 3 } });
    const once = await reads();
    await clients[1]!.client.callTool({ name: 'get_customer', arguments: { id: 3 } });
    expect(once).toBe(1);
    expect(await reads()).toBe(1);
  });
});
