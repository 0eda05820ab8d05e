// The MCP server's own costs, in one run:
//   1. spawn to tools/list with real keys (no sandbox loaded in the server), as a ratio to a bare SDK v2
//      stdio server with one tool                                                     (goal <= 1.0)
//   2. a tool call's round trip over stdio, as a ratio to the same call made directly with our client
//      (get_invoice / api.invoices.get, cache bypassed on both sides by varying ids)   (goal <= 1.2)
// The service is the sandbox in a separate process; runs alternate and each figure is a median.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createApiClient } from '../dist/src/api/index.js';
import { createLogger } from '../dist/src/logger.js';
import { startSandboxProcess } from './sandbox-process.mjs';

const cli = new URL('../dist/src/cli.js', import.meta.url).pathname;
const bare = new URL('./support/bare-server.mjs', import.meta.url).pathname;
const GOALS = { start: 1.0, call: 1.2 };
const START_ROUNDS = 15;
const CALLS = 400;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function spawnToList(args, env) {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' }));
  const { tools } = await client.listTools();
  const ms = performance.now() - t0;
  await client.close();
  if (tools.length === 0) throw new Error('no tools');
  return ms;
}

const sb = await startSandboxProcess(['--rate-limit', '1000000000', '--sign-in-limit', '100000']);
const env = { ...process.env, SVC_BASE_URL: sb.base_url, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, INVOICING_MCP_LOG_LEVEL: 'warn' };
try {
  const ours = [];
  const theirs = [];
  await spawnToList([cli], env);
  await spawnToList([bare], env);
  for (let i = 0; i < START_ROUNDS; i++) {
    ours.push(await spawnToList([cli], env));
    theirs.push(await spawnToList([bare], env));
  }
  const startRatio = median(ours) / median(theirs);

  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli], env, stderr: 'ignore' }));
  const api = createApiClient(
    { baseUrl: sb.base_url, keyId: sb.keys.live.key_id, secret: sb.keys.live.secret },
    { logger: createLogger({ level: 'warn' }) },
  );
  const viaMcp = async (id) => {
    const r = await client.callTool({ name: 'get_invoice', arguments: { id } });
    if (r.isError) throw new Error(r.content[0].text);
  };
  const direct = async (id) => {
    await api.invoices.get(id, { cache: 'skip' });
  };
  const timeEach = async (fn, offset) => {
    const times = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      await fn(((offset + i) % 400) + 1);
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  await timeEach(viaMcp, 0);
  await timeEach(direct, 0);
  const mcpRounds = [];
  const directRounds = [];
  for (let r = 0; r < 3; r++) {
    // The server caches reads for a short while: move through fresh ids so both sides go to the service.
    mcpRounds.push(await timeEach(viaMcp, 7 + r * 131));
    directRounds.push(await timeEach(direct, 7 + r * 131));
  }
  const callRatio = median(mcpRounds) / median(directRounds);
  await client.close();
  await api.close();

  const row = (name, ratio, goal, detail) =>
    `  ${name.padEnd(34)} ${ratio.toFixed(2)}  (goal <= ${goal.toFixed(2)}: ${ratio <= goal ? 'met' : 'NOT met'})  ${detail}`;
  process.stdout.write(
    [
      'MCP server (node bench/run.mjs server)',
      row('spawn to tools/list vs bare server', startRatio, GOALS.start, `median ${median(ours).toFixed(0)} ms vs ${median(theirs).toFixed(0)} ms over ${START_ROUNDS} spawns`),
      row('tool call over stdio vs direct', callRatio, GOALS.call, `median ${median(mcpRounds).toFixed(2)} ms vs ${median(directRounds).toFixed(2)} ms per call`),
      '',
    ].join('\n'),
  );
} finally {
  await sb.stop();
}
