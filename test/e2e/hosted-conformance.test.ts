// The MCP conformance suite's authorization-server scenarios against hosted mode: its CLI checks our
// authorization server metadata, then makes an authorization code request with PKCE and a resource for a
// client registered in configuration, waits for the code at its own callback, and trades it for a token.
// The person's part is played in a real browser (Chromium from the registry) on our sign-in page.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from '../support/chromium.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { fillKey } from './support/oauth-client.js';
import { freePort, stopChild } from './support/server.js';

// The package has no entry point of its own, only its command's script.
const CONFORMANCE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
const NODE20 = new URL('./support/conformance-node20/register.mjs', import.meta.url).href;
const CLIENT_ID = 'conformance-suite';

let sb: TestSandbox;
let server: HostedServer;
let browser: Browser;
let callbackPort: number;
/** The suite's process, ended at the end if a failure left it waiting for its callback. */
let suite: ChildProcess | undefined;
const work = mkdtempSync(join(tmpdir(), 'invoicing-mcp-conformance-'));

/** The suite's client, registered in configuration: a public client whose redirect URI is the suite's callback. */
function clientsFile(): string {
  const file = join(work, 'clients.json');
  const client = {
    client_id: CLIENT_ID,
    client_name: 'MCP conformance suite',
    redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  writeFileSync(file, JSON.stringify([client]));
  return file;
}

beforeAll(async () => {
  const [started, port] = await Promise.all([startTestSandbox(), freePort()]);
  sb = started;
  callbackPort = port;
  [server, browser] = await Promise.all([
    startHostedServer({
      sandbox: sb,
      database: await postgresDatabase('hosted_conformance'),
      vaultKey: newVaultKey(),
      args: ['--oauth-clients', clientsFile()],
    }),
    connectChromium(),
  ]);
});

afterAll(async () => {
  if (suite) await stopChild(suite);
  await browser?.close();
  await server?.close();
  await sb?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs `conformance authorization` (every authorization-server scenario, in order) against our issuer. */
function runSuite(output: string): { child: ChildProcess; stdout: () => string } {
  const args = ['--url', server.origin, '--client-id', CLIENT_ID, '--resource', server.url, '-p', String(callbackPort), '-o', output];
  const child = spawn(process.execPath, ['--import', NODE20, CONFORMANCE, 'authorization', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.resume();
  suite = child;
  return { child, stdout: () => stdout };
}

/** Resolves with the authorization URL the suite prints for the person to open. */
async function authorizationUrl(child: ChildProcess, stdout: () => string): Promise<string> {
  const prefix = `${server.origin}/oauth/authorize?`;
  const found = () =>
    stdout()
      .split('\n')
      .find((line) => line.startsWith(prefix));
  while (!found()) {
    if (child.exitCode !== null) throw new Error(`the suite ended before asking for sign-in:\n${stdout()}`);
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')]);
  }
  return found()!;
}

/** Every scenario's checks file the suite wrote under `output`. */
function checksIn(output: string): Check[] {
  const files = readdirSync(output, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('checks.json'));
  return files.flatMap((name) => JSON.parse(readFileSync(join(output, name), 'utf8')) as Check[]);
}

describe('MCP conformance suite, authorization server', () => {
  it('passes every check of its authorization-server scenarios, signing in through our page', async () => {
    const output = join(work, 'results');
    const { child, stdout } = runSuite(output);
    const exited = once(child, 'exit');
    const page = await browser.newPage();
    await page.goto(await authorizationUrl(child, stdout));
    await fillKey(page, { keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });
    await page.getByRole('button', { name: 'Allow' }).click();
    const [code] = await exited;
    const checks = checksIn(output);
    expect(checks.map((c) => c.id).sort()).toEqual([
      'authorization-code-grant',
      'authorization-server-metadata',
      'authorization-server-metadata-cimd',
    ]);
    expect(
      checks.filter((c) => c.status !== 'SUCCESS'),
      stdout(),
    ).toEqual([]);
    expect(code, stdout()).toBe(0);
  });
});
