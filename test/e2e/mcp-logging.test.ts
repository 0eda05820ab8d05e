// Logging the MCP way: the server declares the `logging` capability in both protocol eras; on the 2025
// handshake (where server logging is not deprecated) it honours logging/setLevel, and a warning a user
// should see (here a webhook delivery refused) reaches the client as notifications/message, unless the
// client asked only for more severe messages; so does SVC_POLL_SECONDS asking for more background calls
// than the mirror's share of the rate limit allows.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type Connected, connectClient, type Sdk } from './support/clients.js';
import { freePort, keyEnv } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

// 20 calls a minute, for the poll-interval test; the limit is each key's, and the other servers here call nothing.
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: 20 });
});
afterAll(async () => sb?.close());

const messages = (c: Connected): any[] => c.received.filter((m) => m.method === 'notifications/message');

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe('the v2 client on 2026-07-28', () => {
  it('sees the logging capability declared', async () => {
    const mcp = await connectClient('v2', { linked: await stdioHere([], keyEnv(sb, sb.keys.test)) });
    try {
      expect((mcp.client as any).getServerCapabilities()?.logging).toEqual({});
    } finally {
      await mcp.close();
    }
  });
});

describe.each(['v1'] as Sdk[])('the %s client over stdio, with a webhook listener', (sdk) => {
  let mcp: Connected;
  let hook: string;
  beforeAll(async () => {
    const port = await freePort();
    hook = `http://127.0.0.1:${port}/webhooks`;
    const env = {
      SVC_BASE_URL: sb.baseUrl,
      SVC_KEY_ID: sb.keys.live.key_id,
      SVC_SECRET: sb.keys.live.secret,
      SVC_WEBHOOK_SECRET: 'whsec_logging_test_secret',
      SVC_POLL_SECONDS: '0',
    };
    mcp = await connectClient(sdk, { linked: await stdioHere(['--webhook-port', String(port)], env) });
  });
  afterAll(async () => mcp?.close());

  const refusedDelivery = async (): Promise<void> => {
    const post = () =>
      request(hook, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=00' }, body: '{}' });
    // The listener starts just after the MCP server is ready.
    let reply = await post().catch(() => null);
    for (let i = 0; reply === null && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 50));
      reply = await post().catch(() => null);
    }
    if (reply === null) throw new Error(`the webhook listener at ${hook} never answered`);
    expect(reply.statusCode).toBe(400);
    await reply.body.dump();
  };

  it('declares the logging capability', () => {
    expect((mcp.client as any).getServerCapabilities()?.logging).toEqual({});
  });

  it('a refused webhook delivery reaches the client as a warning', async () => {
    await refusedDelivery();
    expect(await until(() => messages(mcp).length > 0, 3000)).toBe(true);
    const [first] = messages(mcp);
    expect(first.params).toMatchObject({ level: 'warning', logger: 'invoicing-mcp' });
    expect(String(first.params.data)).toMatch(/^webhook delivery refused/);
    expect(String(first.params.data)).not.toContain('whsec_');
  });

  it('after logging/setLevel error, warnings no longer reach it; after warning, they do again', async () => {
    await (mcp.client as any).setLoggingLevel('error');
    const before = messages(mcp).length;
    await refusedDelivery();
    // The delivery's warning is logged before its 400 goes out, and stdout keeps order: had it been sent,
    // it would have come in ahead of the answer to the next request.
    await (mcp.client as any).setLoggingLevel('warning');
    expect(messages(mcp).length).toBe(before);
    await refusedDelivery();
    expect(await until(() => messages(mcp).length > before, 3000)).toBe(true);
  });
});

describe('the v1 client over stdio, with SVC_POLL_SECONDS shorter than the rate limit allows', () => {
  let mcp: Connected;
  beforeAll(async () => {
    // 20 calls a minute: while tools use the key the mirror may spend 5, so a round of five lists takes a minute.
    // The second business: each of its lists is one page, so the first list (after which it is said) needs no
    // second call, which the background's share of 20 a minute would space 3.3 s after the first.
    const env = { ...keyEnv(sb, await sb.makeKey('live', [...ALL_SCOPES], 2)), SVC_POLL_SECONDS: '5' };
    mcp = await connectClient('v1', { linked: await stdioHere(['--mirror', 'memory'], env) });
  });
  afterAll(async () => mcp?.close());

  it('hears, once, how often changes will really be found', async () => {
    expect(await until(() => messages(mcp).some((m) => String(m.params?.data).startsWith('SVC_POLL_SECONDS=5')), 15_000)).toBe(true);
    const told = messages(mcp).filter((m) => String(m.params?.data).startsWith('SVC_POLL_SECONDS=5'));
    expect(told).toHaveLength(1);
    expect(told[0].params).toMatchObject({ level: 'warning', logger: 'invoicing-mcp' });
    expect(String(told[0].params.data)).toContain('20 per 60 s');
    expect(String(told[0].params.data)).toContain('about every 60 s');
  });
});
