// The MCP server's own costs, in one run:
//   1. spawn to tools/list with real keys (no sandbox loaded in the server), as a ratio to a bare SDK v2
//      stdio server with one tool                                                     (goal <= 1.0)
//   2. a tool call's round trip over stdio, as a ratio to the same call made directly with our client
//      (get_invoice / api.invoices.get, each call a different invoice, so no cache answers) (goal <= 1.2):
//      once against the sandbox on loopback as it is (it answers in a fraction of a millisecond, so the
//      stdio hop between two processes weighs as much as the call), and once with the sandbox holding each
//      answer back 10 ms, as a service across a network would at the least. The hop alone is shown too.
// The service is the sandbox in a separate process; runs alternate and each figure is a median.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createApiClient } from '../dist/src/api/index.js';
import { createLogger } from '../dist/src/log/logger.js';
import { startSandboxProcess } from './sandbox-process.mjs';

const cli = new URL('../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;
const bare = new URL('./support/bare-server.mjs', import.meta.url).pathname;
const GOALS = { start: 1.0, call: 1.2 };
const START_ROUNDS = 15;
const CALLS = 400;
const ROUNDS = 5;
const SERVICE_MS = 10;
const REMOTE_CALLS = 60;

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

const sb = await startSandboxProcess(['--scale', '25', '--rate-limit', '1000000000', '--sign-in-limit', '100000']);
// The servers keep their default books mirror; its file goes to a temp dir removed at the end, not the user's cache.
const scratch = mkdtempSync(join(tmpdir(), 'server-bench-'));
const env = sb.serverEnv(scratch);
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
  // The server caches reads (invoices for 30 s): every call, on either side, asks for an invoice never asked
  // for before, so both go to the service. Ids are handed out in order from the scaled books.
  let nextId = 1;
  const timeEach = async (fn, calls, id = () => nextId++) => {
    const times = [];
    for (let i = 0; i < calls; i++) {
      const arg = id();
      const t0 = performance.now();
      await fn(arg);
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const compareCalls = async (calls) => {
    await timeEach(viaMcp, calls);
    await timeEach(direct, calls);
    const mcp = [];
    const bare = [];
    for (let r = 0; r < ROUNDS; r++) {
      mcp.push(await timeEach(viaMcp, calls));
      bare.push(await timeEach(direct, calls));
    }
    return { ratio: median(mcp) / median(bare), mcpMs: median(mcp), directMs: median(bare) };
  };
  const loopback = await compareCalls(CALLS);
  // The stdio hop alone: the same invoice again, answered by the server's cache.
  const hopMs = await timeEach(viaMcp, CALLS, () => 1);
  // A service over a network: the sandbox holds each answer back 10 ms.
  await sb.setFaults({ rate: 1, kinds: ['latency'], latency_ms: SERVICE_MS });
  const remote = await compareCalls(REMOTE_CALLS);
  await sb.setFaults(null);
  await client.close();
  await api.close();

  const row = (name, ratio, goal, detail) =>
    `  ${name.padEnd(34)} ${ratio.toFixed(2)}  (goal <= ${goal.toFixed(2)}: ${ratio <= goal ? 'met' : 'NOT met'})  ${detail}`;
  process.stdout.write(
    [
      'MCP server (node bench/run.mjs server)',
      row(
        'spawn to tools/list vs bare server',
        startRatio,
        GOALS.start,
        `median ${median(ours).toFixed(0)} ms vs ${median(theirs).toFixed(0)} ms over ${START_ROUNDS} spawns`,
      ),
      row(
        'tool call over stdio vs direct',
        loopback.ratio,
        GOALS.call,
        `median ${loopback.mcpMs.toFixed(2)} ms vs ${loopback.directMs.toFixed(2)} ms per call, sandbox on loopback`,
      ),
      row(
        `  the same, service takes ${SERVICE_MS} ms`,
        remote.ratio,
        GOALS.call,
        `median ${remote.mcpMs.toFixed(2)} ms vs ${remote.directMs.toFixed(2)} ms per call`,
      ),
      `  (the stdio hop alone, a call the server's cache answers: ${hopMs.toFixed(2)} ms, ${(hopMs / loopback.directMs).toFixed(2)} of a direct call on loopback)`,
      '',
    ].join('\n'),
  );
} finally {
  await sb.stop();
  rmSync(scratch, { recursive: true, force: true });
}
