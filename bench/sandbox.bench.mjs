// The sandbox's throughput on a list at per_page=100, rate limit lifted, measured by autocannon from
// this process while the sandbox runs in another. Goal: at least 3,000 requests a second.
import autocannon from 'autocannon';
import { signIn, startSandboxProcess } from './sandbox-process.mjs';

const GOAL_RPS = 3000;
const sb = await startSandboxProcess(['--rate-limit', '1000000000']);
try {
  const headers = await signIn(sb.base_url, sb.keys.live);
  const url = `${sb.base_url}/api/v1/invoices?per_page=100&page=2`;
  const probe = await fetch(url, { headers });
  const body = await probe.json();
  if (probe.status !== 200 || body.data.length !== 100) throw new Error(`unexpected answer ${probe.status}`);
  const bytes = Buffer.byteLength(JSON.stringify(body));
  const run = (duration) => autocannon({ url, headers, connections: 16, pipelining: 1, duration });
  await run(2); // warm-up: JIT and the rendered-record cache
  const result = await run(8);
  const rps = result.requests.average;
  const errors = result.errors + result.non2xx;
  process.stdout.write(
    [
      `sandbox list throughput (GET /api/v1/invoices?per_page=100, ${bytes} bytes, 16 connections, 8 s)`,
      `  requests/s: ${rps.toFixed(0)}  (goal >= ${GOAL_RPS}: ${(rps / GOAL_RPS).toFixed(2)}x of goal)`,
      `  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; errors/non-2xx: ${errors}`,
      '',
    ].join('\n'),
  );
  if (errors > 0) process.exitCode = 1;
} finally {
  await sb.stop();
}
