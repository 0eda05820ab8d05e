// In stdio mode the --webhook-port listener is live before the server answers its client: a delivery sent the
// moment a client's subscription is acknowledged is taken (204), not refused because nothing listens yet.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signPayload } from '../../src/events/signature.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { legacyWatcher, type Watcher } from './support/mcp-watchers.js';
import { freePort } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const SECRET = `whsec_${'s'.repeat(32)}`;
const URI = 'invoicing://invoices/1';

let sb: TestSandbox;
let watcher: Watcher | undefined;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await watcher?.close();
  await sb?.close();
});

it('takes a delivery sent right after the subscription is acknowledged, and the subscriber hears it', async () => {
  const port = await freePort();
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_WEBHOOK_SECRET: SECRET };
  watcher = await legacyWatcher({
    linked: await stdioHere(['--webhook-port', String(port), '--mirror', 'off'], { ...env, SVC_POLL_SECONDS: '0' }),
  });
  await watcher.subscribe([URI]);
  const since = Date.now();
  const body = JSON.stringify({
    id: 'evt_first_moment',
    event: 'invoice.paid',
    created_at: new Date().toISOString(),
    data: { invoice: { id: 1 } },
  });
  const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, Math.floor(Date.now() / 1000), body) },
    body,
  });
  expect(res.status).toBe(204);
  await watcher.updated(URI, since, 5_000);
});
