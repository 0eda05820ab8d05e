// The keys' scopes a stdio or --http server learns at their first sign-in (src/mcp/key-scopes.ts), on real
// clients of the sandbox: the union of every business's key, and a refused sign-in that leaves them unknown
// until a later one succeeds. The ground truth is the scopes each key was made with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyScopes } from '../../src/mcp/key-scopes.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
});
afterAll(() => sb?.close());

describe('KeyScopes', () => {
  it('learns the union of every key, and tells each listener once', async () => {
    const logs = captureLogs('warn');
    const apis = [
      makeClient(sb, await sb.makeKey('live', ['customers.read', 'invoices.read']), logs),
      makeClient(sb, await sb.makeKey('live', ['products.read', 'invoices.read']), logs),
    ];
    const scopes = new KeyScopes();
    const told: (readonly string[])[] = [];
    scopes.onKnown((known) => told.push(known));
    expect(scopes.known).toBeNull();
    await Promise.all([scopes.learn(apis), scopes.learn(apis)]);
    await scopes.learn(apis);
    expect([...(scopes.known ?? [])].sort()).toEqual(['customers.read', 'invoices.read', 'products.read']);
    expect(told).toEqual([scopes.known]);
    // One sign-in per key, however often it was asked.
    for (const api of apis) expect(api.stats().signIns).toBe(1);
    await Promise.all(apis.map((api) => api.close()));
  });

  it('a refused sign-in leaves them unknown; a later one that succeeds tells the listeners still waiting', async () => {
    const logs = captureLogs('error');
    const key = await sb.makeKey('live', ['customers.read']);
    let now = Date.now();
    const api = makeClient(sb, key, logs, {}, { now: () => now });
    await sb.suspend(key.key_id);
    const scopes = new KeyScopes();
    const told: (readonly string[])[] = [];
    const stopped: (readonly string[])[] = [];
    scopes.onKnown((known) => told.push(known));
    scopes.onKnown((known) => stopped.push(known))();
    await expect(scopes.learn([api])).rejects.toThrow();
    expect(scopes.known).toBeNull();
    expect(told).toEqual([]);
    await sb.resume(key.key_id);
    now += 21_000; // past the client's cool-down after a refused sign-in (FAST: 20 s)
    await scopes.learn([api]);
    expect(scopes.known).toEqual(['customers.read']);
    expect(told).toEqual([['customers.read']]);
    expect(stopped).toEqual([]);
    await api.close();
  });
});
