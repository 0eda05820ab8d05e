// One server over stdio with three businesses (--businesses) against the same server with one (SVC_*), in one run:
//   1. spawn to tools/list, wall and the server's own CPU                                   (goal <= 1.1)
//   2. a warm report_owed for one named business, after a first call read its books      (goal <= 1.1)
// Also the tools list's size with three businesses, in o200k tokens. The two alternate, each figure a median.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { startSandboxProcess } from './sandbox-process.mjs';

const cli = new URL('../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;
const GOAL = 1.1;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const WARM_CALLS = 20;
const NAMES = ['Harbourside', 'Tui Dental', 'Kauri Build'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The user + system CPU a live process has used so far, in ms (Linux's /proc, clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function oneServer(args, env, owedArgs) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const startMs = performance.now() - t0;
  const startCpuMs = cpuMs(transport.pid);
  const first = await client.callTool({ name: 'report_owed', arguments: owedArgs });
  if (first.isError) throw new Error(`report_owed refused: ${JSON.stringify(first.content)}`);
  const warm = [];
  for (let i = 0; i < WARM_CALLS; i++) {
    const t = performance.now();
    await client.callTool({ name: 'report_owed', arguments: owedArgs });
    warm.push(performance.now() - t);
  }
  await client.close();
  return { startMs, startCpuMs, warmMs: median(warm), tokens: countTokens(JSON.stringify(tools)) };
}

async function admin(sb, path, body) {
  const res = await fetch(`${sb.base_url}/_sandbox${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.admin_token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const sb = await startSandboxProcess(['--rate-limit', '1000000000', '--sign-in-limit', '100000']);
const scratch = mkdtempSync(join(tmpdir(), 'businesses-bench-'));
try {
  const keys = [sb.keys.live];
  for (const name of NAMES.slice(1)) keys.push((await admin(sb, '/businesses', { name })).keys.live);
  const file = join(scratch, 'businesses.json');
  const entries = NAMES.map((name, i) => ({ name, base_url: sb.base_url, key_id: keys[i].key_id, secret: keys[i].secret }));
  writeFileSync(file, JSON.stringify(entries));
  const oneEnv = sb.serverEnv(scratch);
  const { SVC_BASE_URL, SVC_KEY_ID, SVC_SECRET, ...threeEnv } = oneEnv;
  const one = () => oneServer([cli], oneEnv, {});
  const three = () => oneServer([cli, '--businesses', file], threeEnv, { business: NAMES[0] });
  await one();
  await three();
  const runs = { one: [], three: [] };
  for (let i = 0; i < ROUNDS; i++) {
    runs.one.push(await one());
    runs.three.push(await three());
  }
  const row = (label, key, unit) => {
    const [a, b] = [median(runs.three.map((r) => r[key])), median(runs.one.map((r) => r[key]))];
    const ratio = a / b;
    const met = ratio <= GOAL ? 'met' : 'NOT met';
    console.log(`${label.padEnd(38)} ${ratio.toFixed(2)}  (goal <= ${GOAL}: ${met})  median ${a.toFixed(2)} vs ${b.toFixed(2)} ${unit}`);
  };
  console.log(`three businesses vs one, ${ROUNDS} alternating rounds of each:`);
  row('spawn to tools/list, wall', 'startMs', 'ms');
  row('spawn to tools/list, server CPU', 'startCpuMs', 'ms');
  row(`warm report_owed (median of ${WARM_CALLS})`, 'warmMs', 'ms');
  console.log(`tools/list: ${runs.three[0].tokens} o200k tokens with three businesses, ${runs.one[0].tokens} with one`);
} finally {
  await sb.stop();
  rmSync(scratch, { recursive: true, force: true });
}
