// Dynamic registration is open to anyone, so one client address may register at most so many clients an hour
// (20 by default), counted on Postgres across processes: 30 registrations sent at once from one address
// (forwarded by a trusted proxy) give exactly 20 clients, the others 429 with Retry-After and an RFC 7591
// error body; another address still registers. And what is registered does not stay: a client is stored to
// expire 24 hours after it registered, or, once it has a grant, 30 days after the grant's expiry.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { codeFor, publicClient } from './support/pkce-flow.js';

const PER_HOUR = 20;
const AT_ONCE = 30;

let sb: TestSandbox;
let server: HostedServer;
let database: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  database = await postgresDatabase('hosted_registration_rate');
  server = await startHostedServer({
    sandbox: sb,
    database,
    vaultKey: newVaultKey(),
    args: ['--trust-proxy', '127.0.0.1', '--registrations-per-hour', String(PER_HOUR)],
  });
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

const registerFrom = async (address: string, i: number, path = '/oauth/register') => {
  const res = await fetch(`${server.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(publicClient(`http://127.0.0.1:9/cb${i}`)),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
};

describe('registrations a client address may make', () => {
  it(`are ${PER_HOUR} an hour, however many are sent at once; another address still registers`, async () => {
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => registerFrom('203.0.113.7', i)));
    const taken = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(taken).toHaveLength(PER_HOUR);
    expect(new Set(taken.map((a) => a.body.client_id)).size).toBe(PER_HOUR);
    expect(refused.map((a) => a.status)).toEqual(Array(AT_ONCE - PER_HOUR).fill(429));
    for (const { retryAfter, body } of refused) {
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
      expect(body.error).toBe('temporarily_unavailable');
      expect(String(body.error_description)).toMatch(/20 clients in the last hour.*try again in \d+ s/);
    }
    expect((await registerFrom('198.51.100.4', 0)).status).toBe(201);
    // The library's router takes the endpoint in any case and with a trailing slash: so does the limit.
    for (const path of ['/oauth/register', '/oauth/register/', '/oauth/Register', '/oauth/register?again=1'])
      expect((await registerFrom('203.0.113.7', 0, path)).status, path).toBe(429);
  });
});

/** Days from now until the stored client expires (its row found by the id's hash, as the server stores it). */
async function daysLeft(clientId: string): Promise<number> {
  const idHash = createHash('sha256').update(`Client\n${clientId}`).digest('base64url');
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT extract(epoch FROM expires_at - now()) AS s FROM invoicing_mcp_hosted.oauth WHERE model = 'Client' AND id_hash = $1`,
      [idHash],
    );
    return Number(rows[0]?.s) / 86_400;
  } finally {
    await client.end();
  }
}

describe('a registered client', () => {
  it('expires 24 hours after it registered, or 30 days after its grant does once it has one', async () => {
    const held = await codeFor(server, { keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });
    const unused = await registerFrom('198.51.100.9', 1);
    expect(await daysLeft(String(unused.body.client_id))).toBeCloseTo(1, 2);
    expect(await daysLeft(held.clientId)).toBeCloseTo(60, 2);
  });
});
