// What a create tells the model after a fault is true to what happened: a create the server itself retried
// (the first attempt applied, its answer lost) says it was created once, not "already created earlier with
// this idempotency key" (the model gave none); a create the service never received (connection refused)
// says it was not applied, not that it "may or may not" have been.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkFault } from '../../src/api/errors.js';
import type { ApiClient } from '../../src/api/index.js';
import { createCustomer } from '../../tools/customers.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { steppingTime } from '../support/test-time.js';

const logs = captureLogs('warn');
// One sandbox for the file: the last test takes it away (the service gone), so it runs last.
let sb: TestSandbox;
let closed = false;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 1_000_000 });
});
afterAll(async () => {
  if (!closed) await sb?.close();
});

describe('a create the server retried after its answer was lost', () => {
  let api: ApiClient;
  beforeAll(async () => {
    // Back-off moves the client's clock rather than waiting.
    const time = steppingTime();
    api = makeClient(sb, sb.keys.live, logs, { maxRetries: 12 }, { now: time.now, sleep: time.sleep });
    await api.ping();
  });
  afterAll(async () => {
    await sb?.clearFaults();
    await api?.close();
  });

  it('says "created once", never "already created earlier with this idempotency key", when the model gave no key', async () => {
    await sb.faults(0.5, ['reset_after']);
    const texts: string[] = [];
    for (let i = 0; i < 30; i++) texts.push((await createCustomer.handler({ api, logger: logs.logger }, { name: `Retried ${i}` })).text);
    await sb.clearFaults();
    const retried = texts.filter((t) => t.includes('Created once: the first attempt got no clear answer'));
    // At a 50% rate, each create's first attempt is lost half the time: none in 30 is a 1 in 10^9 chance.
    expect(retried.length).toBeGreaterThan(0);
    expect(texts.filter((t) => t.includes('Already created earlier'))).toEqual([]);
  });

  it('says "already created earlier with this idempotency key" when the model repeats its own key', async () => {
    const args = { name: 'Keyed Ltd', idempotency_key: `key-${Date.now()}` };
    const first = await createCustomer.handler({ api, logger: logs.logger }, args);
    const again = await createCustomer.handler({ api, logger: logs.logger }, args);
    expect(first.text).not.toContain('Already created earlier');
    expect(again.text).toContain('Already created earlier with this idempotency key; no duplicate.');
    expect(again.structured.id).toBe(first.structured.id);
  });
});

describe('a create refused at the connection', () => {
  it('says it was not applied', async () => {
    const api = makeClient(sb, sb.keys.live, logs, { maxRetries: 2 });
    try {
      await api.ping();
      closed = true;
      await sb.close();
      // Let the client see its kept-alive connection closed, so the create needs a new one (and is refused).
      await new Promise((resolve) => setTimeout(resolve, 200));
      const err = await api.customers.create({ name: 'Never Sent Ltd' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NetworkFault);
      const message = (err as Error).message;
      expect(message).toContain('ECONNREFUSED');
      expect(message).toContain('The create was not applied: no attempt reached the service.');
      expect(message).not.toContain('may or may not');
    } finally {
      await api.close();
    }
  });
});
