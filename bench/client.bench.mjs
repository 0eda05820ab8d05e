// The client's overhead, against one in-process sandbox (rate limit lifted, 25 times the sample books):
//   1. a cache miss, as a ratio to a bare undici request of the same URL      (goal <= 1.10)
//   2. a cache hit, as a ratio to a miss                                      (goal <= 0.05)
//   3. reading 10,000+ invoices through the pagination iterator (`pages()`, the issue's "one async
//      iterator over all pages") vs a bare undici page loop                   (goal <= 1.05)
//      and, for information, through the record iterator `all()` (one await per record)
// Client and bare runs alternate in small blocks after a warm-up, so both meet the same machine; each
// ratio is the median of the ratios of adjacent blocks. Figures go to stdout (a bench may print there).
import { Agent, request } from 'undici';
import { createApiClient } from '../dist/src/api/index.js';
import { createLogger } from '../dist/src/log/logger.js';
import { startSandbox } from '../dist/src/sandbox/index.js';

const GOALS = { miss: 1.1, hit: 0.05, pages: 1.05 };
const CALL_ROUNDS = { warm: 2, measured: 12 };
const IDS_PER_ROUND = 400;
const BLOCK = 10;
const READS = { warm: 4, measured: 40 };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const started = performance.now();
const sb = await startSandbox({ port: 0, scale: 25, rateLimit: 1e9, signInLimit: 1000 });
const key = sb.keys.live;
const client = createApiClient({ baseUrl: sb.baseUrl, keyId: key.key_id, secret: key.secret }, { logger: createLogger({ level: 'warn' }) });
const bare = new Agent({ connections: 8, keepAliveTimeout: 10_000 });

try {
  const signIn = await request(`${sb.baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    dispatcher: bare,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ key_id: key.key_id, secret: key.secret }),
  });
  const token = (await signIn.body.json()).access_token;
  const headers = { authorization: `Bearer ${token}`, 'x-service-key': key.key_id, accept: 'application/json' };
  const bareGet = async (path) => {
    const res = await request(`${sb.baseUrl}${path}`, { dispatcher: bare, headers });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`bare GET ${path}: ${res.statusCode}`);
    return body;
  };
  const total = (await bareGet('/api/v1/invoices?per_page=1')).meta.total;
  await client.ping();

  // ---- 1 and 2: GET /api/v1/invoices/{id}; bare and client (misses) alternate block by block ----
  const missRatios = [];
  const hitRatios = [];
  const perCall = { bare: [], miss: [], hit: [] };
  for (let round = 0; round < CALL_ROUNDS.warm + CALL_ROUNDS.measured; round++) {
    client.clearCache();
    const first = (round * IDS_PER_ROUND) % (total - IDS_PER_ROUND);
    for (let b = 0; b < IDS_PER_ROUND / BLOCK; b++) {
      const ids = Array.from({ length: BLOCK }, (_, i) => first + b * BLOCK + i + 1);
      const runBare = () =>
        time(async () => {
          for (const id of ids) await bareGet(`/api/v1/invoices/${id}`);
        });
      const runClient = () =>
        time(async () => {
          for (const id of ids) await client.invoices.get(id);
        });
      let tb;
      let tm;
      if (b % 2 === 0) {
        tb = await runBare();
        tm = await runClient();
      } else {
        tm = await runClient();
        tb = await runBare();
      }
      const th = await runClient(); // the same ids again: every call a hit
      if (round < CALL_ROUNDS.warm) continue;
      missRatios.push(tm / tb);
      hitRatios.push(th / tm);
      perCall.bare.push((tb * 1000) / BLOCK);
      perCall.miss.push((tm * 1000) / BLOCK);
      perCall.hit.push((th * 1000) / BLOCK);
    }
  }

  // ---- 3: every invoice, through the iterator and through a bare page loop, alternating ----
  const bareAll = async () => {
    let n = 0;
    for (let page = 1; ; page++) {
      const body = await bareGet(`/api/v1/invoices?page=${page}&per_page=100`);
      for (const inv of body.data) if (inv.id) n++;
      if (body.data.length === 0 || body.meta.current_page >= body.meta.last_page) break;
    }
    return n;
  };
  const clientPages = async () => {
    let n = 0;
    for await (const page of client.invoices.pages()) for (const inv of page.data) if (inv.id) n++;
    return n;
  };
  const clientRecords = async () => {
    let n = 0;
    for await (const inv of client.invoices.all()) if (inv.id) n++;
    return n;
  };
  const readRatios = [];
  const recordRatios = [];
  const readMs = { bare: [], iter: [], records: [] };
  for (let round = 0; round < READS.warm + READS.measured; round++) {
    const counts = [];
    const runs = [
      ['bare', () => time(async () => counts.push(await bareAll()))],
      ['iter', () => time(async () => counts.push(await clientPages()))],
      ['records', () => time(async () => counts.push(await clientRecords()))],
    ];
    if (round % 2 === 1) runs.reverse();
    const t = {};
    for (const [name, run] of runs) t[name] = await run();
    if (counts.some((c) => c !== total)) throw new Error(`read ${counts.join('/')} of ${total} invoices`);
    if (round < READS.warm) continue;
    readRatios.push(t.iter / t.bare);
    recordRatios.push(t.records / t.bare);
    for (const name of Object.keys(t)) readMs[name].push(t[name]);
  }

  const rows = [
    [
      'cache miss / bare undici',
      median(missRatios),
      GOALS.miss,
      `${median(perCall.miss).toFixed(0)} us vs ${median(perCall.bare).toFixed(0)} us per GET /api/v1/invoices/{id}`,
    ],
    [
      'cache hit / cache miss',
      median(hitRatios),
      GOALS.hit,
      `${median(perCall.hit).toFixed(2)} us vs ${median(perCall.miss).toFixed(0)} us per call`,
    ],
    [
      `${total} invoices: pages() / bare loop`,
      median(readRatios),
      GOALS.pages,
      `${median(readMs.iter).toFixed(0)} ms vs ${median(readMs.bare).toFixed(0)} ms for ${Math.ceil(total / 100)} pages of 100`,
    ],
  ];
  const info = [
    `${total} invoices: all() / bare loop`,
    median(recordRatios),
    null,
    `${median(readMs.records).toFixed(0)} ms (one await per record; no goal)`,
  ];
  const lines = [
    'client overhead against an in-process sandbox (scale 25, rate limit lifted)',
    `  ${CALL_ROUNDS.measured} rounds x ${IDS_PER_ROUND} GETs in blocks of ${BLOCK}, and ${READS.measured} full reads each way; medians of adjacent-run ratios`,
    `  ${'measure'.padEnd(36)} ${'ratio'.padStart(6)} ${'goal'.padStart(8)}  met  raw`,
    ...rows.map(
      ([name, ratio, goal, raw]) =>
        `  ${name.padEnd(36)} ${ratio.toFixed(3).padStart(6)} ${(`<= ${goal}`).padStart(8)}  ${ratio <= goal ? 'yes' : 'NO '}  ${raw}`,
    ),
    `  ${info[0].padEnd(36)} ${info[1].toFixed(3).padStart(6)} ${'-'.padStart(8)}   -   ${info[3]}`,
    `  client stats: cache ${JSON.stringify(client.stats().cache)}, sign-ins ${client.stats().signIns}; bench ${((performance.now() - started) / 1000).toFixed(1)} s`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  if (rows.some(([, ratio, goal]) => ratio > goal)) process.exitCode = 1;
} finally {
  await client.close();
  await bare.close();
  await sb.close();
}
