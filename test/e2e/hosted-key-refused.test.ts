// The business's word at the service is final: within 30 seconds of the service refusing a key (suspended,
// revoked or regenerated through the sandbox's admin API), every call of its grants gets 401 with a challenge
// to sign in again, answers that never reach the service included (a read the client's cache holds). While
// the tenant is in use its key is confirmed at most every 30 s, a ping spent only when no call the service
// accepted confirmed it within that window. The hosted server runs in the test worker on a clock the test
// moves, so no test waits 30 real seconds.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { signInByForms } from './support/form-sign-in.js';
import { hostedArgs, newVaultKey } from './support/hosted.js';
import { legacyWatcher } from './support/mcp-watchers.js';
import { MemoryOAuthProvider, type OAuthClient, oauthClient, type Signer, startFlow } from './support/oauth-client.js';
import { freePort, SERVE_IN_PROCESS, serverEnv } from './support/server.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const WINDOW_S = 30;

let sb: TestSandbox;
let url: string;
let stop: () => Promise<void>;
let stderr = '';
/** The server's clock: real time, moved on by the test. */
let skippedMs = 0;
/** The timers of the server's key confirmations while a tenant is in use: they fire when the test says. */
const pending = new Set<() => void>();
const confirmTimers = {
  set(fn: () => void): unknown {
    const handle = (): void => {
      pending.delete(handle);
      fn();
    };
    pending.add(handle);
    return handle;
  },
  clear: (handle: unknown): void => void pending.delete(handle as () => void),
};

beforeAll(async () => {
  sb = await startTestSandbox();
  const { hostedInProcess } = (await import(SERVE_IN_PROCESS)) as typeof import('../../src/cli/serve-in-process.js');
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  const write = (text: string) => void (stderr += text.endsWith('\n') ? text : `${text}\n`);
  const serving = await hostedInProcess(
    hostedArgs(port, url, await postgresDatabase('hosted_key_refused')),
    serverEnv({ SVC_BASE_URL: sb.baseUrl, INVOICING_MCP_VAULT_KEY: newVaultKey() }),
    { stderr: write, logDestination: { write }, now: () => Date.now() + skippedMs, timers: confirmTimers },
  );
  stop = () => serving.stop();
});
afterAll(async () => {
  await stop?.();
  await sb?.close();
});

const skip = (seconds: number): void => void (skippedMs += seconds * 1000);

/** A new grant of the key, its client connected with the grant's token. */
async function signIn(signer: Signer, name: string): Promise<OAuthClient> {
  const provider = new MemoryOAuthProvider(REDIRECT, name);
  const flow = await startFlow(url, provider);
  await flow.transport.finishAuth(await signInByForms(provider.authorizationUrl as URL, REDIRECT, signer, url));
  const connected = oauthClient(url, provider);
  await connected.client.connect(connected.transport);
  return connected;
}

/** A request of the grant's token straight to /mcp: its status and challenge. */
async function rawCall(grant: OAuthClient): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${grant.provider.tokens()?.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

const listCustomers = (grant: OAuthClient) => grant.client.callTool({ name: 'list_customers', arguments: { per_page: 3 } });

async function pings(keyId: string): Promise<number> {
  return (await sb.requests(keyId)).filter((r) => r.path === '/api/ping').length;
}

it('a key in use is confirmed at most every 30 s, and a ping is spent only when no accepted call confirmed it', async () => {
  const key = await sb.makeKey('test');
  const grant = await signIn({ keyId: key.key_id, secret: key.secret }, 'confirms');
  expect((await listCustomers(grant)).isError).toBeFalsy();
  const before = await pings(key.key_id);
  // The list is the client's cache's from now on: nothing of these reaches the service but the confirmations.
  skip(WINDOW_S - 10);
  expect((await listCustomers(grant)).isError).toBeFalsy();
  expect(await pings(key.key_id)).toBe(before);
  skip(15);
  expect((await listCustomers(grant)).isError).toBeFalsy();
  expect((await listCustomers(grant)).isError).toBeFalsy();
  expect(await pings(key.key_id)).toBe(before + 1);
  // A call the service accepted confirms the key: no ping for a window after it.
  skip(WINDOW_S + 1);
  expect((await grant.client.callTool({ name: 'get_customer', arguments: { id: 2 } })).isError).toBeFalsy();
  expect(await pings(key.key_id)).toBe(before + 2);
  skip(WINDOW_S - 5);
  expect((await grant.client.callTool({ name: 'get_customer', arguments: { id: 3 } })).isError).toBeFalsy();
  skip(WINDOW_S - 5);
  expect((await listCustomers(grant)).isError).toBeFalsy();
  expect(await pings(key.key_id)).toBe(before + 2);
  await grant.client.close();
});

describe.each([
  ['suspended', (keyId: string) => sb.suspend(keyId)],
  ['revoked', async (keyId: string) => void (await sb.admin('DELETE', `/keys/${keyId}`))],
  ['regenerated', async (keyId: string) => void (await sb.regenerate(keyId))],
] as const)('a key %s at the service', (_kind, refuse) => {
  it('gets 401 with a challenge on every call of its grants within 30 s, cached answers included', async () => {
    const key = await sb.makeKey('test');
    const signer = { keyId: key.key_id, secret: key.secret };
    const grants = [await signIn(signer, 'first'), await signIn(signer, 'second')];
    for (const grant of grants) expect((await listCustomers(grant)).isError).toBeFalsy();
    await refuse(key.key_id);
    skip(WINDOW_S);
    for (const grant of grants) {
      const refused = await rawCall(grant);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(/^Bearer .*resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
      expect(refused.challenge).toMatch(/error="invalid_token"/);
    }
    await expect(listCustomers(grants[0] as OAuthClient)).rejects.toThrow();
    for (const grant of grants) await grant.client.close().catch(() => undefined);
  });
});

it('an open stream with no request behind it still has its key confirmed every 30 s: a suspended key ends its grants', async () => {
  const key = await sb.makeKey('test');
  const grant = await signIn({ keyId: key.key_id, secret: key.secret }, 'streams');
  await grant.client.close();
  // The 2025-era client keeps a GET stream open: its tenant is in use with no request in flight.
  const watcher = await legacyWatcher({ http: url, headers: { authorization: `Bearer ${grant.provider.tokens()?.access_token}` } });
  await vi.waitFor(() => expect(pending.size).toBe(1));
  const before = await pings(key.key_id);
  await sb.suspend(key.key_id);
  skip(WINDOW_S);
  for (const confirm of [...pending]) confirm();
  await vi.waitFor(() => expect(stderr.match(/a key stopped working/g)?.length).toBe(4));
  expect(await pings(key.key_id)).toBe(before + 1);
  expect((await rawCall(grant)).status).toBe(401);
  await watcher.close();
});

it('the log says each key stopped working, and holds none of their secrets', async () => {
  // Ending a key's grants runs after its refusal is answered.
  await vi.waitFor(() => expect(stderr.match(/a key stopped working/g)?.length).toBe(4));
  for (const secret of sb.secrets) expect(stderr).not.toContain(secret);
});
