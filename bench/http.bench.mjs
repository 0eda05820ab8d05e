// HTTP mode against a bare SDK server making the same service call (bench/support/bare-http-server.mjs),
// each in its own process, the sandbox in a third (100 times the sample books, 42,000 invoices, so that
// no get_invoice names an invoice our server has asked for within its cache's 30 s):
//   1. get_invoice (a different invoice each call) and tools/list, stateless (2026-07-28) and in a
//      2025-era session, at 8 and 32 clients: throughput as a ratio ours / bare       (goals below);
//      each row also gives each server's own CPU per call
//   2. get_invoice stateless with the service 10 ms away (the sandbox's latency fault), rate limit lifted
//   3. the RSS of each side in a fresh process after the same 20,000 stateless get_invoice calls
//                                                                                    (goal <= 1.2x)
//      and, for information, the RSS of the processes above after 20,000 more
// Runs alternate ours and bare within each repetition (the order flips each time); each ratio is the
// median of the repetitions' ratios, so both sides meet the same machine.
// The goals measure ours with `--mirror off` and SVC_POLL_SECONDS=0: then it does the bare server's work
// and no more, so the ratios are the per-request cost of our MCP layer. With its defaults ours also keeps
// the books mirror: at --scale 100 it reads all 42,000 invoices in background rounds and fetches every
// invoice's lines for as long as the bench runs (most of a core, and RSS that grows with the books), work
// the bare server never does; and `--mirror off` alone still reads the four event kinds into memory every
// 60 s for subscriptions. That cost is reported plainly in a last section, not hidden: ours with its
// defaults (the mirror's file in a temp dir removed at the end, never the user's cache directory), started
// only then so that it does not share the cores with the measured runs:
//   4. get_invoice stateless and in a session at 8 clients, and the RSS after 20,000 calls, ours with the
//      mirror on against the bare server                                               (no goal)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startSandboxProcess } from './sandbox-process.mjs';
import { runLoad } from './support/mcp-load.mjs';
import { startOurHttpServer } from './support/our-http-server.mjs';

const bareServer = new URL('./support/bare-http-server.mjs', import.meta.url).pathname;
const REPS = 3;
const RUN_MS = 2000;
const RSS_CALLS = 20_000;
const SERVICE_MS = 10;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function startBare(env) {
  const child = spawn(process.execPath, [bareServer], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { ...JSON.parse(line), child };
}

const stop = (server) =>
  new Promise((resolve) => {
    server.child.once('exit', resolve);
    server.child.kill('SIGTERM');
  });

const CLOCK_TICK_MS = 10; // /proc/<pid>/stat counts in clock ticks of 1/100 s on Linux
/** A process's CPU time so far (user + system), in ms. */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
};
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const sb = await startSandboxProcess(['--scale', '100', '--rate-limit', '1000000000', '--sign-in-limit', '100000']);
const setLatency = (ms) => sb.setFaults(ms ? { rate: 1, kinds: ['latency'], latency_ms: ms } : null);
const scratch = mkdtempSync(join(tmpdir(), 'http-bench-'));
const env = sb.serverEnv(scratch);
const servers = {};

try {
  [servers.ours, servers.bare] = await Promise.all([
    startOurHttpServer({ ...env, SVC_POLL_SECONDS: '0' }, ['--mirror', 'off']),
    startBare(env),
  ]);
  const total = await invoiceCount();
  // Each side walks the invoices in its own order; ours never meets an id again within its cache's 30 s.
  const cursors = { ours: 0, bare: Math.floor(total / 2) };
  const getInvoice = (side) => () => ({
    method: 'tools/call',
    name: 'get_invoice',
    params: { name: 'get_invoice', arguments: { id: (cursors[side]++ % total) + 1 } },
  });
  const listTools = () => ({ method: 'tools/list', params: {} });
  // Each run also reports the server process's own CPU per call (user + system, from /proc).
  const load = async (side, shape, extra = {}) => {
    const before = cpuMs(servers[side].pid);
    const run = await runLoad({
      url: servers[side].url,
      mode: shape.mode,
      clients: shape.clients,
      ms: RUN_MS,
      next: shape.tool === 'get_invoice' ? getInvoice(side) : listTools,
      ...extra,
    });
    return { ...run, cpuUs: ((cpuMs(servers[side].pid) - before) * 1000) / run.calls };
  };

  for (const side of ['ours', 'bare']) {
    for (const mode of ['stateless', 'session']) await load(side, { mode, clients: 8, tool: 'get_invoice' }, { ms: 1000 });
  }
  const compare = async (shape) => {
    const runs = { ours: [], bare: [] };
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours'];
      for (const side of order) runs[side].push(await load(side, shape));
    }
    const ratios = runs.ours.map((r, i) => r.rps / runs.bare[i].rps);
    const pick = (side, key) => median(runs[side].map((r) => r[key]));
    const figures = (side) => ({ rps: pick(side, 'rps'), p99: pick(side, 'p99'), cpuUs: pick(side, 'cpuUs') });
    return { ...shape, ratio: median(ratios), ours: figures('ours'), bare: figures('bare') };
  };

  const rows = [];
  for (const mode of ['stateless', 'session']) {
    for (const tool of ['get_invoice', 'tools/list']) {
      for (const clients of [8, 32]) rows.push(await compare({ mode, tool, clients }));
    }
  }
  await setLatency(SERVICE_MS);
  for (const clients of [8, 32]) rows.push({ ...(await compare({ mode: 'stateless', tool: 'get_invoice', clients })), remote: true });
  await setLatency(0);

  const afterRuns = {};
  for (const side of ['bare', 'ours']) {
    await load(side, { mode: 'stateless', clients: 32, tool: 'get_invoice' }, { ms: Infinity, calls: RSS_CALLS });
    afterRuns[side] = rssMb(servers[side].pid);
  }
  // The goal's figure: each side in a fresh process after the same 20,000 calls. After the timed runs above
  // the two have not done the same work: in a fixed time the faster side answered more calls (up to twice as
  // many), and V8 grows a heap with the rate it allocates at. That figure is reported too.
  await Promise.all([stop(servers.ours), stop(servers.bare)]);
  [servers.ours, servers.bare] = await Promise.all([
    startOurHttpServer({ ...env, SVC_POLL_SECONDS: '0' }, ['--mirror', 'off']),
    startBare(env),
  ]);
  const rss = {};
  for (const side of ['bare', 'ours']) {
    await load(side, { mode: 'stateless', clients: 32, tool: 'get_invoice' }, { ms: Infinity, calls: RSS_CALLS });
    rss[side] = rssMb(servers[side].pid);
  }

  await stop(servers.ours);
  servers.ours = await startOurHttpServer(env, ['--mirror', join(scratch, 'mirror.db')]);
  const mirrorRows = [];
  for (const mode of ['stateless', 'session']) mirrorRows.push(await compare({ mode, tool: 'get_invoice', clients: 8 }));
  await load('ours', { mode: 'stateless', clients: 32, tool: 'get_invoice' }, { ms: Infinity, calls: RSS_CALLS });
  const mirrorRss = rssMb(servers.ours.pid);
  report(rows, rss, afterRuns, mirrorRows, mirrorRss);
} finally {
  await Promise.all(Object.values(servers).map(stop));
  await sb.stop();
  rmSync(scratch, { recursive: true, force: true });
}

async function invoiceCount() {
  const signIn = await fetch(`${sb.base_url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sb.keys.live),
  });
  const token = (await signIn.json()).access_token;
  const res = await fetch(`${sb.base_url}/api/v1/invoices?per_page=1`, {
    headers: { authorization: `Bearer ${token}`, 'x-service-key': sb.keys.live.key_id },
  });
  return (await res.json()).meta.total;
}

function goalOf(row) {
  if (row.tool !== 'get_invoice') return null;
  if (row.remote) return row.clients === 32 ? 0.9 : null;
  return row.mode === 'stateless' ? 1.1 : 1.5;
}

function rowLine(row, verdict) {
  const name = `${row.tool} ${row.mode}, ${row.clients} clients${row.remote ? `, service ${SERVICE_MS} ms away` : ''}`;
  const figures = `${row.ours.rps.toFixed(0)} vs ${row.bare.rps.toFixed(0)} calls/s, p99 ${row.ours.p99.toFixed(1)} vs ${row.bare.p99.toFixed(1)} ms`;
  return `  ${name.padEnd(52)} ${row.ratio.toFixed(2)}x ${verdict}  ${figures}, server CPU ${row.ours.cpuUs.toFixed(0)} vs ${row.bare.cpuUs.toFixed(0)} us/call`;
}

function report(rows, rss, afterRuns, mirrorRows, mirrorRss) {
  const lines = [
    `MCP over HTTP, ours (--mirror off, SVC_POLL_SECONDS=0) vs a bare SDK server (node bench/run.mjs http; ${REPS} alternated runs of ${RUN_MS / 1000} s each)`,
  ];
  for (const row of rows) {
    const goal = goalOf(row);
    lines.push(
      rowLine(row, goal === null ? '(no goal)          ' : `(goal >= ${goal.toFixed(2)}: ${row.ratio >= goal ? 'met' : 'NOT met'})`),
    );
  }
  const rssLine = (name, ours, bare, verdict) =>
    `  ${name.padEnd(52)} ${(ours / bare).toFixed(2)}x ${verdict}  ${ours.toFixed(0)} vs ${bare.toFixed(0)} MB`;
  lines.push(
    rssLine(
      `RSS of a fresh process after ${RSS_CALLS} calls`,
      rss.ours,
      rss.bare,
      `(goal <= 1.20: ${rss.ours / rss.bare <= 1.2 ? 'met' : 'NOT met'})`,
    ),
  );
  lines.push(rssLine(`RSS after the runs above and ${RSS_CALLS} more`, afterRuns.ours, afterRuns.bare, '(no goal)          '));
  lines.push('The same server with its defaults: the books mirror on (its file in a temp dir), background syncs every 60 s');
  for (const row of mirrorRows) lines.push(rowLine(row, '(no goal)          '));
  lines.push(rssLine(`RSS after the runs above and ${RSS_CALLS} more`, mirrorRss, afterRuns.bare, '(no goal)          '), '');
  process.stdout.write(lines.join('\n'));
}
