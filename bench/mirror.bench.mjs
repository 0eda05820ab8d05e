// The books mirror's cost (issue item 5), at --scale 1 and --scale 25 (about 10,500 invoices) in one run,
// each against a sandbox in its own process (rate limit lifted, so the figures are the mirror's own):
//   1. service calls for the first full sync, against the floor (records / 100 per kind)   goal <= 1.02x
//      (into a SQLite file, and again into a Postgres database)
//   2. calls for an incremental sync with nothing changed                                 goal: 1 per kind
//   3. how long a tool call waits behind background work (every call given 10 ms of latency by the
//      sandbox; extra median wait of a tool call while the mirror reads and fetches lines, against one
//      background call's time)                                                           goal <= 1 call
//   4. RSS of a fresh server process holding the whole mirror (every record and every invoice's lines, in
//      its file, brought up to date) against one holding an empty mirror, the median of 3 each goal <= 1.3x
//      and, for information, the RSS of the process that built it, before and after (its high-water
//      mark of parsing some 10,000 answers, not rows held: its JS heap in use barely moves)
//   5. a restart on the same file: calls and time to be fresh again                     goal: 1 call per kind
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (typeof globalThis.gc !== 'function') {
  const run = spawnSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

const { createApiClient } = await import('../dist/src/api/index.js');
const { createLogger } = await import('../dist/src/log/logger.js');
const { startMirror } = await import('../dist/src/books/mirror.js');
const { openMirrorStore } = await import('../dist/src/books/open-store.js');
const { MIRRORED_KINDS } = await import('../dist/src/store/types.js');
const { signIn, startSandboxProcess } = await import('./sandbox-process.mjs');
const { startBenchPostgres } = await import('./support/postgres.mjs');
const postgres = await startBenchPostgres();

const logger = createLogger({ level: 'error' });
const TOOL_CALLS = 150;
const HOLDS = 3;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rssMiB = () => {
  globalThis.gc();
  globalThis.gc();
  const u = process.memoryUsage();
  if (process.env.MIRROR_BENCH_MEMORY)
    console.error(JSON.stringify(Object.fromEntries(Object.entries(u).map(([k, v]) => [k, Math.round(v / 1048576)]))));
  return u.rss / 1024 / 1024;
};
const verdict = (ok) => (ok ? 'meets the goal' : 'MISSES the goal');

function holdingProcess(sb, key, path, fresh) {
  const script = new URL('./support/mirror-hold.mjs', import.meta.url).pathname;
  const run = spawnSync(process.execPath, ['--expose-gc', script, sb.base_url, key.key_id, key.secret, path, fresh ? '1' : '0'], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`mirror-hold failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The hold with the median RSS (its heap and counts with it). */
const medianHold = (holds) => [...holds].sort((a, b) => a.rss - b.rss)[Math.floor(holds.length / 2)];

const fileAt = (path) => ({ kind: 'file', path, explicit: true });

async function openMirror(api, location, options = {}) {
  const store = await openMirrorStore({
    location,
    identity: 'bench',
    warn: () => undefined,
  });
  const mirror = await startMirror({ api, store, bus: null, logger, pollSeconds: 0, ...options });
  return {
    store,
    mirror,
    close: async () => {
      await mirror.stop();
      await store.close();
    },
  };
}

/** A new mirror's first full read and then every invoice's lines: the calls and time of each. */
async function firstSync(mirror) {
  let t0 = performance.now();
  await mirror.round();
  const coldMs = performance.now() - t0;
  const coldCalls = mirror.stats().calls;
  t0 = performance.now();
  await mirror.linesSettled();
  return { coldMs, coldCalls, linesMs: performance.now() - t0, lineCalls: mirror.stats().lineCalls };
}

async function toolLatencies(api, ids) {
  const out = [];
  for (const id of ids) {
    const t0 = performance.now();
    await api.invoices.get(id, { cache: 'skip' });
    out.push(performance.now() - t0);
  }
  return out;
}

async function atScale(scale) {
  const sb = await startSandboxProcess(['--scale', String(scale), '--rate-limit', '1000000000', '--sign-in-limit', '1000']);
  const admin = (method, path, body) =>
    fetch(`${sb.base_url}/_sandbox${path}`, {
      method,
      headers: { authorization: `Bearer ${sb.admin_token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
  try {
    const key = sb.keys.live;
    const headers = await signIn(sb.base_url, key);
    const totals = {};
    for (const kind of MIRRORED_KINDS)
      totals[kind] = (await (await fetch(`${sb.base_url}/api/v1/${kind}?per_page=1`, { headers })).json()).meta.total;
    const floor = MIRRORED_KINDS.reduce((n, k) => n + Math.max(1, Math.ceil(totals[k] / 100)), 0);
    const api = createApiClient({ baseUrl: sb.base_url, keyId: key.key_id, secret: key.secret }, { logger });
    await api.ping();
    const path = join(mkdtempSync(join(tmpdir(), 'mirror-bench-')), 'books.db');
    let m = await openMirror(api, fileAt(path));
    const rssEmpty = rssMiB();

    const { coldMs, coldCalls, linesMs, lineCalls } = await firstSync(m.mirror);
    const before = m.mirror.stats().calls;
    await m.mirror.round();
    const incremental = m.mirror.stats().calls - before;
    await m.mirror.linesSettled();
    const rssFull = rssMiB();
    const coverage = await m.store.coverage();
    await m.close();
    // A process's RSS outside its JS heap swings by some 10 % from one start to the next: each side is the
    // median of HOLDS processes, started in turn.
    const emptyPath = join(mkdtempSync(join(tmpdir(), 'mirror-bench-')), 'empty.db');
    const holds = { full: [], empty: [] };
    for (let i = 0; i < HOLDS; i++) {
      holds.full.push(holdingProcess(sb, key, path, true));
      holds.empty.push(holdingProcess(sb, key, emptyPath, false));
    }
    const heldFull = medianHold(holds.full);
    const heldEmpty = medianHold(holds.empty);

    // The same first sync into a Postgres database.
    const onPostgres = await openMirror(api, { kind: 'postgres', url: await postgres.database(`mirror_bench_${scale}`) });
    const onPg = await firstSync(onPostgres.mirror);
    await onPostgres.close();

    // Restart on the same file.
    m = await openMirror(api, fileAt(path), { freshMs: 0 });
    const t0 = performance.now();
    await m.mirror.books.ensureFresh(MIRRORED_KINDS);
    const restartMs = performance.now() - t0;
    const restartCalls = m.mirror.stats().calls;
    await m.close();

    // Tool calls alone, then beside a cold mirror's background reads and line fetches (10 ms a call).
    await admin('PUT', '/faults', { rate: 1, kinds: ['latency'], latency_ms: 10 });
    const ids = Array.from({ length: TOOL_CALLS }, (_, i) => 1 + ((i * 7919) % totals.invoices));
    const alone = await toolLatencies(api, ids);
    const busy = await openMirror(api, { kind: 'memory' });
    void busy.mirror.round().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    const beside = await toolLatencies(api, ids);
    const bgCalls = busy.mirror.stats().calls + busy.mirror.stats().lineCalls;
    // Each background call's own time, as the sandbox logged it (the tool calls are the ones in `ids`).
    const log = (await (await admin('GET', '/logs?kind=requests')).json()).data;
    const bgMs = log
      .filter((e) => e.key_id === key.key_id && /[?]/.test(e.path) && e.path.includes('page='))
      .slice(-Math.max(1, busy.mirror.stats().calls))
      .map((e) => e.ms);
    await busy.close();
    await admin('DELETE', '/faults');
    await api.close();
    return {
      scale,
      totals,
      floor,
      coldCalls,
      coldMs,
      pgColdCalls: onPg.coldCalls,
      pgColdMs: onPg.coldMs,
      pgLineCalls: onPg.lineCalls,
      pgLinesMs: onPg.linesMs,
      incremental,
      lineCalls,
      linesMs,
      coverage,
      rssEmpty,
      rssFull,
      heldFull,
      heldEmpty,
      restartCalls,
      restartMs,
      coldRestartRatio: restartMs / coldMs,
      alone,
      beside,
      bgCalls,
      bgMs,
    };
  } finally {
    await sb.stop();
  }
}

for (const scale of (process.env.MIRROR_BENCH_SCALES ?? '1,25').split(',').map(Number)) {
  const r = await atScale(scale);
  const records = Object.values(r.totals).reduce((a, b) => a + b, 0);
  const extraWait = median(r.beside) - median(r.alone);
  // One background call's time: the longest of a tool call alone and a background list page.
  const oneCall = Math.max(median(r.alone), r.bgMs.length > 0 ? median(r.bgMs) : 0);
  console.log(`\n-- --scale ${scale}: ${records} records (${r.totals.invoices} invoices)`);
  console.log(
    `first full sync: ${r.coldCalls} calls against a floor of ${r.floor} = ${(r.coldCalls / r.floor).toFixed(3)}x (goal <= 1.02x: ${verdict(r.coldCalls / r.floor <= 1.02)}), ${(r.coldMs / 1000).toFixed(2)} s`,
  );
  console.log(
    `first full sync on Postgres: ${r.pgColdCalls} calls against a floor of ${r.floor} = ${(r.pgColdCalls / r.floor).toFixed(3)}x (goal <= 1.02x: ${verdict(r.pgColdCalls / r.floor <= 1.02)}), ${(r.pgColdMs / 1000).toFixed(2)} s; every invoice's lines: ${r.pgLineCalls} calls, ${(r.pgLinesMs / 1000).toFixed(2)} s`,
  );
  console.log(
    `incremental sync, nothing changed: ${r.incremental} calls for ${MIRRORED_KINDS.length} kinds = ${(r.incremental / MIRRORED_KINDS.length).toFixed(2)} per kind (goal 1: ${verdict(r.incremental === MIRRORED_KINDS.length)})`,
  );
  console.log(
    `lines: ${r.lineCalls} get_invoice calls for ${r.coverage.withLines} of ${r.coverage.invoices} invoices in ${(r.linesMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `tool call wait behind background work: median ${median(r.beside).toFixed(1)} ms beside ${r.bgCalls} background calls vs ${median(r.alone).toFixed(1)} ms alone: +${extraWait.toFixed(1)} ms, ${(extraWait / oneCall).toFixed(2)} of one background call's time (${oneCall.toFixed(1)} ms) (goal <= 1: ${verdict(extraWait <= oneCall)})`,
  );
  const held = r.heldFull.rss / r.heldEmpty.rss;
  console.log(
    `RSS of a server process holding the whole mirror (${r.heldFull.counts.invoices} invoices, ${r.heldFull.counts.lines} lines): ${r.heldFull.rss.toFixed(1)} MiB vs ${r.heldEmpty.rss.toFixed(1)} MiB holding an empty one (the median of ${HOLDS} processes each) = ${held.toFixed(2)}x (goal <= 1.3x: ${verdict(held <= 1.3)}); JS heap in use ${r.heldFull.heapUsed.toFixed(1)} vs ${r.heldEmpty.heapUsed.toFixed(1)} MiB`,
  );
  console.log(
    `  (the process that built it: ${r.rssFull.toFixed(1)} MiB after vs ${r.rssEmpty.toFixed(1)} MiB before = ${(r.rssFull / r.rssEmpty).toFixed(2)}x, its high-water mark of the build)`,
  );
  console.log(
    `restart on the same file: fresh after ${r.restartCalls} calls in ${(r.restartMs / 1000).toFixed(2)} s, ${(100 * r.coldRestartRatio).toFixed(1)} % of the first sync's time (goal one call per kind: ${verdict(r.restartCalls === MIRRORED_KINDS.length)})`,
  );
}
await postgres.stop();
