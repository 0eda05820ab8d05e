// How the event settings are refused or reported when the server starts: a webhook port with nothing to
// check deliveries with, or in HTTP mode, exits 2 saying what to set; a secret without a port in stdio mode
// is pointed out in the banner; the embedded sandbox offers no subscriptions.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { connectClient } from './support/clients.js';
import { CLI, type Env, serverEnv } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const KEYS: Env = {
  SVC_BASE_URL: 'http://127.0.0.1:9',
  SVC_KEY_ID: 'svck_live_abcdefghijklmnopqrstuvwx',
  SVC_SECRET: `svc_live_${'x'.repeat(40)}`,
};
const WEBHOOK_SECRET = `whsec_${'w'.repeat(32)}`;

/** Starts the server with nothing on its stdin; resolves with how it exited and what it said. Each test's runs side by side. */
function start(args: string[], env: Env): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: serverEnv(env), stdio: ['pipe', 'ignore', 'pipe'], timeout: 10_000 });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end();
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stderr })));
}

describe('refused at start, exit 2', { concurrent: true }, () => {
  it('--webhook-port without SVC_WEBHOOK_SECRET', async () => {
    const run = await start(['--webhook-port', '8787'], { ...KEYS, SVC_POLL_SECONDS: '0' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--webhook-port needs SVC_WEBHOOK_SECRET');
  });

  it('--webhook-port on the embedded sandbox', async () => {
    const run = await start(['--webhook-port', '8787'], {});
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('the built-in sandbox sends this server no webhooks');
  });

  it('--webhook-port with --http', async () => {
    const run = await start(['--http', '--webhook-port', '8787'], { ...KEYS, SVC_WEBHOOK_SECRET: WEBHOOK_SECRET });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("with --http the service's webhooks come to /webhooks on the same server");
  });

  it('a webhook secret that is not one, without echoing it', async () => {
    const run = await start([], { ...KEYS, SVC_WEBHOOK_SECRET: 'svc_live_not_a_webhook_secret' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('SVC_WEBHOOK_SECRET must be');
    expect(run.stderr).not.toContain('svc_live_not_a_webhook_secret');
  });
});

it.concurrent('in stdio mode, a webhook secret without --webhook-port is pointed out, and the secret never shown', async () => {
  // The banner is written before the server answers anyone: it is all there once the server has started.
  const server = await stdioHere([], { ...KEYS, SVC_WEBHOOK_SECRET: WEBHOOK_SECRET, SVC_POLL_SECONDS: '0' });
  await server.close();
  expect(server.stderr()).toContain('no webhook is received');
  expect(server.stderr()).toContain('SVC_WEBHOOK_SECRET is set but no --webhook-port is given');
  expect(server.stderr()).not.toContain(WEBHOOK_SECRET);
});

it.concurrent('on the embedded sandbox, subscriptions are not offered (nothing changes its books on its own)', async () => {
  const mcp = await connectClient('v2', { linked: await stdioHere() });
  try {
    expect((mcp.client as any).getServerCapabilities()?.resources?.subscribe).toBeFalsy();
  } finally {
    await mcp.close();
  }
});
