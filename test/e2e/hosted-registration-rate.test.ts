// Dynamic registration is open to anyone, so one client address may register at most so many clients an hour
// (20 by default), counted on Postgres across processes: 30 registrations sent at once from one address
// (forwarded by a trusted proxy) give exactly 20 clients, the others 429 with Retry-After and an RFC 7591
// error body; another address still registers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, spawnHostedServer } from './support/hosted.js';
import { publicClient } from './support/pkce-flow.js';

const PER_HOUR = 20;
const AT_ONCE = 30;

let sb: TestSandbox;
let server: HostedServer;

beforeAll(async () => {
  sb = await startTestSandbox();
  server = await spawnHostedServer({
    sandbox: sb,
    database: await postgresDatabase('hosted_registration_rate'),
    vaultKey: newVaultKey(),
    args: ['--trust-proxy', '127.0.0.1', '--registrations-per-hour', String(PER_HOUR)],
  });
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

const registerFrom = async (address: string, i: number) => {
  const res = await fetch(`${server.origin}/oauth/register`, {
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
    expect((await registerFrom('203.0.113.7', 0)).status).toBe(429);
  });
});
