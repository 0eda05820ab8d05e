// Forged deliveries to a business's webhook URL (its id right, its signature wrong) do not use its tenant:
// its books mirror rests once idle however many of them come, as it does with none. The hosted server runs in
// the test worker with an idle time of a second, so the test waits a few seconds, not minutes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Serving } from '../../src/cli/serve-in-process.js';
import { eventually, type Json, listAll, signIn } from '../contract/sandbox-http.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { hostedArgs, newVaultKey } from './support/hosted.js';
import { MemoryOAuthProvider, startFlow } from './support/oauth-client.js';
import { freePort, serverEnv } from './support/server.js';
import { postSignedEvent } from './support/signed-delivery.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const IDLE_MS = 1_000;

let sb: TestSandbox;
let server: Serving;
let origin = '';

beforeAll(async () => {
  sb = await startTestSandbox();
  const { hostedInProcess } = await import('../../src/cli/serve-in-process.js');
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = await hostedInProcess(
    hostedArgs(port, `${origin}/mcp`, await postgresDatabase('webhook_forged')),
    serverEnv({ SVC_BASE_URL: sb.baseUrl, INVOICING_MCP_VAULT_KEY: newVaultKey() }),
    { stderr: () => undefined, logDestination: { write: () => undefined }, tenantIdleMs: IDLE_MS },
  );
});

afterAll(async () => {
  await server?.stop();
  await sb?.close();
});

/** Signs the sandbox's business in through the forms with `secret` as its webhook signing secret; the webhook's path. */
async function signInWith(secret: string): Promise<string> {
  const provider = new MemoryOAuthProvider(REDIRECT, 'Forged webhooks');
  const flow = await startFlow(`${origin}/mcp`, provider);
  const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, origin);
  const page = await forms.continueWith({ keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });
  const path = new URL(/id="webhook_url">([^<]+)</.exec(page)?.[1] as string).pathname;
  await flow.transport.finishAuth(await forms.allow(page, 'read', { webhook_secret: secret }));
  return path;
}

/** An `invoice.sent` of invoice `id` posted to `path`, signed with `secret`; its status. */
const deliver = (path: string, secret: string, id: number): Promise<number> =>
  postSignedEvent(`${origin}${path}`, secret, 'invoice.sent', { invoice: { id } });

async function mirrors(): Promise<Json> {
  const res = await fetch(`${origin}/readyz`);
  return ((await res.json()) as Json).tenants.mirrors;
}

it("forged deliveries to a tenant's webhook URL do not keep its mirror from resting", async () => {
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const path = await signInWith(secret);
  const invoice = (await listAll(await signIn(sb.baseUrl, sb.keys.live), '/api/v1/invoices'))[0].id as number;
  // A real delivery opens the mirror; it rests IDLE_MS after.
  expect(await deliver(path, secret, invoice)).toBe(204);
  expect(await mirrors()).toEqual({ open: 1 });
  // Forged deliveries, one every tenth of the idle time for two and a half idle times: all refused.
  const wrong = `whsec_${randomBytes(24).toString('base64url')}`;
  for (const until = Date.now() + 2.5 * IDLE_MS; Date.now() < until; ) {
    expect(await deliver(path, wrong, invoice)).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 10));
  }
  expect(await eventually(async () => ((await mirrors()).resting === 1 ? mirrors() : undefined), 500)).toEqual({ resting: 1 });
});
