// HTTP mode under load at full size (the suite runs it scaled down: test/e2e/http-load.test.ts), against
// the built server with its default caps (512 connections, 128 streams and 500 sessions per client, 1000
// sessions) and a session idle timeout of 10 s so that the last phase need not wait a minute: a hog holds
// 500 GET streams, a bystander works throughout, then 200 sessions of the SDK's client, 1,000 stateless
// requests at once, and 1,000 sessions opened and never ended. Prints what each client met; fails when
// anyone but the hog and the abandoner was refused or cut off.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHttpLoad } from './support/http-load.mjs';

const cli = new URL('../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;
const IDLE_S = 10;
const SIZES = { sessions: 200, stateless: 1000, streams: 500, abandoned: 1000 };

const scratch = mkdtempSync(join(tmpdir(), 'http-load-bench-'));
const child = spawn(process.execPath, [cli, '--http', '--port', '0', '--mirror', 'off', '--session-idle-timeout', String(IDLE_S)], {
  env: { PATH: process.env.PATH, HOME: scratch, XDG_CACHE_HOME: scratch, INVOICING_MCP_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
const url = await new Promise((resolve, reject) => {
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    const m = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr);
    if (m) resolve(m[1]);
  });
  child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
});

let report;
try {
  report = await runHttpLoad({ url, sizes: SIZES, afterIdle: () => new Promise((r) => setTimeout(r, IDLE_S * 1000 + 500)) });
} finally {
  child.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
}

const problems = [];
if (report.sessions.failed > 0) problems.push(`${report.sessions.failed} SDK sessions failed: ${report.sessions.reasons.join('; ')}`);
if (report.stateless.failed > 0)
  problems.push(`${report.stateless.failed} stateless requests failed: ${report.stateless.reasons.join('; ')}`);
if (report.bystander.errors.length > 0) problems.push(`the bystander met: ${report.bystander.errors.join('; ')}`);
if (report.abandoned.bystanderInitialize !== 200) problems.push(`the bystander's new session got ${report.abandoned.bystanderInitialize}`);
if (report.afterIdle.initialize !== 200) problems.push(`after the idle timeout the abandoner got ${report.afterIdle.initialize}`);
const lines = [
  `HTTP mode under load (node bench/run.mjs http-load; default caps, session idle timeout ${IDLE_S} s), ${(report.ms / 1000).toFixed(1)} s in all`,
  `  hog, ${SIZES.streams} GET streams:                 ${JSON.stringify(report.hog)} (status: count)`,
  `  ${SIZES.sessions} SDK sessions (no DELETE):         ${report.sessions.ok} ok, ${report.sessions.failed} failed, ${report.sessions.ms} ms`,
  `  ${SIZES.stateless} stateless requests at once:    ${report.stateless.ok} ok, ${report.stateless.failed} failed, ${report.stateless.ms} ms`,
  `  ${SIZES.abandoned} sessions never ended:          ${JSON.stringify(report.abandoned.statuses)}, ${report.abandoned.ms} ms; bystander's new session: ${report.abandoned.bystanderInitialize}`,
  `  after the idle timeout, the abandoner:  ${report.afterIdle.initialize}`,
  `  bystander:                               ${report.bystander.calls} calls, ${report.bystander.errors.length} errors`,
  problems.length === 0 ? '  nobody but the hog and the abandoner refused, nobody cut off' : `  PROBLEMS: ${problems.join(' | ')}`,
  '',
];
process.stdout.write(lines.join('\n'));
process.exit(problems.length === 0 ? 0 : 1);
