// Hosted mode's cost per call: an authorized stateless get_invoice (a bearer token checked against the
// authorization server's store, its grant led to its tenant) against one in --http-token mode (one shared
// token), each server in its own process on the same sandbox and key, one call at a time, a distinct
// invoice each call, the two sides taking turns in rounds.                     goal: at most 1.2x by median
// The person's sign-in is done as the tests do it: the SDK's OAuth client provider, and the sign-in page's
// forms posted over HTTP (test/e2e/support, compiled on the fly as bench/support/postgres.mjs does).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import { startSandboxProcess } from './sandbox-process.mjs';
import { freePort } from './support/free-port.mjs';
import { startBenchPostgres } from './support/postgres.mjs';

const root = new URL('../', import.meta.url).pathname;
const cli = join(root, 'dist/bin/invoicing-mcp.mjs');
const ROUNDS = 6;
const CALLS = 100;
const TOKEN = randomBytes(24).toString('hex');
const REDIRECT = 'http://127.0.0.1:9/callback';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The tests' sign-in helpers, compiled where they find the packages they import. */
async function signInHelpers() {
  const outdir = join(root, 'node_modules', '.cache', 'invoicing-mcp-bench', 'sign-in');
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [join(root, 'test/e2e/support/oauth-client.ts'), join(root, 'test/e2e/support/form-sign-in.ts')],
    outdir,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  return { ...(await import(join(outdir, 'oauth-client.mjs'))), ...(await import(join(outdir, 'form-sign-in.mjs'))) };
}

function startServer(args, env, banner) {
  const child = spawn(process.execPath, [cli, '--http', '--host', '127.0.0.1', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = banner.exec(seen);
      if (m && !resolve.done) {
        resolve.done = true;
        resolve({ url: m[1], child });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
}

const stop = (server) =>
  new Promise((resolve) => {
    server.child.once('exit', resolve);
    server.child.kill('SIGTERM');
  });

async function timeCalls(client, ids) {
  const out = [];
  for (const id of ids) {
    const started = performance.now();
    const result = await client.callTool({ name: 'get_invoice', arguments: { id } });
    out.push(performance.now() - started);
    if (result.isError) throw new Error(`get_invoice ${id}: ${JSON.stringify(result.content)}`);
  }
  return out;
}

const sb = await startSandboxProcess(['--rate-limit', '1000000000', '--sign-in-limit', '100000']);
const postgres = await startBenchPostgres();
const scratch = mkdtempSync(join(tmpdir(), 'hosted-bench-'));
const servers = [];
try {
  const helpers = await signInHelpers();
  const desktopEnv = { ...sb.serverEnv(scratch), SVC_POLL_SECONDS: '0' };
  const { SVC_KEY_ID: _id, SVC_SECRET: _secret, ...serviceEnv } = desktopEnv;
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}/mcp`;
  const [desktop, hosted] = await Promise.all([
    startServer(['--port', '0', '--http-token', TOKEN, '--mirror', 'off'], desktopEnv, /Streamable HTTP at (http:\/\/\S+\/mcp)/),
    startServer(
      [
        '--hosted',
        '--port',
        String(port),
        '--public-url',
        publicUrl,
        '--grant-rate-limit',
        '1000000',
        '--mirror',
        await postgres.database('hosted_bench'),
      ],
      { ...serviceEnv, INVOICING_MCP_VAULT_KEY: randomBytes(32).toString('base64') },
      /hosted MCP server at (http:\/\/\S+\/mcp)/,
    ),
  ]);
  servers.push(desktop, hosted);
  const provider = new helpers.MemoryOAuthProvider(REDIRECT, 'Bench Assistant');
  const flow = await helpers.startFlow(hosted.url, provider);
  const signer = { keyId: sb.keys.live.key_id, secret: sb.keys.live.secret };
  await flow.transport.finishAuth(await helpers.signInByForms(provider.authorizationUrl, REDIRECT, signer, new URL(publicUrl).origin));
  const authorized = helpers.oauthClient(hosted.url, provider);
  await authorized.client.connect(authorized.transport);
  const shared = new Client({ name: 'bench', version: '1.0.0' });
  await shared.connect(
    new StreamableHTTPClientTransport(new URL(desktop.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  const listed = await shared.callTool({ name: 'list_invoices', arguments: { per_page: 100 } });
  const total = listed.structuredContent.meta.total;
  // Each side walks the invoices on its own: no call of a round names an invoice that side asked for lately.
  const idsFrom = (start) => Array.from({ length: CALLS }, (_, i) => ((start + i) % total) + 1);
  await timeCalls(shared, idsFrom(0));
  await timeCalls(authorized.client, idsFrom(0));
  const times = { token: [], oauth: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    times.token.push(...(await timeCalls(shared, idsFrom(round * CALLS))));
    times.oauth.push(...(await timeCalls(authorized.client, idsFrom(round * CALLS))));
  }
  const [token, oauth] = [median(times.token), median(times.oauth)];
  const ratio = oauth / token;
  console.log(
    `stateless get_invoice, ${ROUNDS * CALLS} calls each, one at a time: --http-token median ${token.toFixed(2)} ms, ` +
      `hosted (OAuth) median ${oauth.toFixed(2)} ms = ${ratio.toFixed(2)}x (goal: at most 1.2x): ${ratio <= 1.2 ? 'meets the goal' : 'MISSES the goal'}`,
  );
  await Promise.all([shared.close(), authorized.client.close()]);
} finally {
  await Promise.all(servers.map(stop));
  await sb.stop();
  await postgres.stop();
  rmSync(scratch, { recursive: true, force: true });
}
