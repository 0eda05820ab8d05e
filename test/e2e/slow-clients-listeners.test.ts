// Slow headers and slow bodies (slowloris) on every other listener people reach, as http-slow-clients does
// for --http: the hosted server (its OAuth endpoints read their own bodies), stdio mode's --webhook-port
// receiver and the sandbox (`invoicing-mcp sandbox`). Each is started with short timeouts and, where it has
// one, a small connection cap; three times the cap of slow connections are held from 127.0.0.1 while a
// normal request from another address (127.0.0.2) gets its answer in time, and the server closes every slow
// one within its request timeout.
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { freePort } from './support/server.js';
import { slowCrowd } from './support/slow-connections.js';
import { type StdioHere, stdioHere } from './support/stdio-here.js';

const HEADERS_TIMEOUT_S = 2;
const REQUEST_TIMEOUT_S = 4;
const MAX_CONNECTIONS = 32;
const SLOW = MAX_CONNECTIONS * 3;
// Node checks the timeouts on an interval (at most a second); a loaded machine closes sockets late.
const SLACK_MS = 2_500;
const LIMIT_FLAGS = [
  '--headers-timeout',
  String(HEADERS_TIMEOUT_S),
  '--request-timeout',
  String(REQUEST_TIMEOUT_S),
  '--max-connections',
  String(MAX_CONNECTIONS),
];
const SECRET = `whsec_${'s'.repeat(32)}`;

/** Requests from 127.0.0.2: another client than the slow crowd's 127.0.0.1. */
const elsewhere = new Agent({ localAddress: '127.0.0.2' });

/** A request from 127.0.0.2: its status. */
async function statusFromElsewhere(url: string, method: 'GET' | 'POST' = 'GET', body?: string): Promise<number> {
  const res = await request(url, { method, dispatcher: elsewhere, headers: { 'content-type': 'application/json' }, body });
  await res.body.dump();
  return res.statusCode;
}

type Kind = 'headers' | 'body';
const KINDS: Kind[] = ['headers', 'body'];

/** A request's first bytes: headers cut short, or whole headers promising a body of which a little comes. */
function openingFor(url: string, contentType: string): (kind: Kind) => string {
  const u = new URL(url);
  return (kind) =>
    kind === 'headers'
      ? `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nX-Slow: `
      : `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: ${contentType}\r\nContent-Length: 50000\r\n\r\n${contentType.includes('json') ? '{"a":' : 'a='}`;
}

/** Holds the slow crowd at `url` while `normal` asks: its status; then every slow one is closed in time. */
async function normalAmongSlow(url: string, contentType: string, normal: () => Promise<number>): Promise<number> {
  const crowd = await slowCrowd(url, KINDS, openingFor(url, contentType), SLOW);
  let status: number;
  try {
    const started = Date.now();
    status = await normal();
    expect(Date.now() - started, 'the normal request waited too long').toBeLessThan(REQUEST_TIMEOUT_S * 1000);
    await crowd.closed(Date.now() + REQUEST_TIMEOUT_S * 1000 + SLACK_MS * 2);
  } finally {
    crowd.end();
  }
  expect(crowd.slows.filter((s) => s.closedAt === null).length, 'slow connections the server never closed').toBe(0);
  expect(crowd.longestMs()).toBeLessThanOrEqual(REQUEST_TIMEOUT_S * 1000 + SLACK_MS);
  return status;
}

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ timeouts: { headersTimeoutMs: HEADERS_TIMEOUT_S * 1000, requestTimeoutMs: REQUEST_TIMEOUT_S * 1000 } });
});
afterAll(async () => {
  await sb?.close();
  await elsewhere.close();
});

describe('slow clients', () => {
  let hosted: HostedServer | undefined;
  let stdio: StdioHere | undefined;
  afterAll(async () => {
    await hosted?.close();
    await stdio?.close();
  });

  it('the hosted server: slow token requests, headers or bodies, are cut off; its metadata still answered', async () => {
    hosted = await startHostedServer({
      sandbox: sb,
      database: await postgresDatabase('slow_clients_hosted'),
      vaultKey: newVaultKey(),
      args: LIMIT_FLAGS,
    });
    const metadata = () => statusFromElsewhere(`${hosted?.origin}/.well-known/oauth-authorization-server`);
    expect(await normalAmongSlow(`${hosted.origin}/oauth/token`, 'application/x-www-form-urlencoded', metadata)).toBe(200);
  }, 60_000);

  it("stdio mode's webhook receiver: slow deliveries are cut off, a delivery still answered", async () => {
    const port = await freePort();
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_WEBHOOK_SECRET: SECRET };
    stdio = await stdioHere(['--webhook-port', String(port), '--mirror', 'off', ...LIMIT_FLAGS], { ...env, SVC_POLL_SECONDS: '0' });
    const url = `http://127.0.0.1:${port}/webhooks`;
    // Unsigned: refused at once, an answer all the same.
    const delivery = () => statusFromElsewhere(url, 'POST', '{"id":"evt_1"}');
    const alone = await delivery();
    expect(alone).toBeGreaterThanOrEqual(400);
    expect(await normalAmongSlow(url, 'application/json', delivery)).toBe(alone);
  }, 60_000);

  it('the sandbox: slow sign-ins are cut off, a sign-in still answered', async () => {
    const url = `${sb.baseUrl}/api/v1/auth/token`;
    const signIn = () => statusFromElsewhere(url, 'POST', JSON.stringify({ key_id: sb.keys.test.key_id, secret: sb.keys.test.secret }));
    expect(await normalAmongSlow(url, 'application/json', signIn)).toBeLessThan(300);
  }, 60_000);
});
