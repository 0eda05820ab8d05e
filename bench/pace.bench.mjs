// Answers at the service's real pace: the sandbox at --scale 4 and its default 120 calls per 60 s window (429
// with Retry-After past it), in real time; the built server over Streamable HTTP with a fresh mirror file.
// One cold question asked as a task (io.modelcontextprotocol/tasks) and polled to its end as its
// pollIntervalMs says:
//   - its time to the whole answer against the quota floor (the service calls the key made for it, at 120
//     a minute)                                                                           goal <= 1.15x
//   - the 429s the key met, against the windows it spanned                              goal <= 1 a window
// It runs for minutes (about nine): the floor itself is that long.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxProcess } from './sandbox-process.mjs';
import { rpc } from './support/mcp-rpc.mjs';
import { startOurHttpServer } from './support/our-http-server.mjs';

const GOAL = 1.15;
const QUESTION = { name: 'report_sales', arguments: { range: 'last_year', group_by: 'product' } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sb = await startSandboxProcess(['--scale', '4']);
const requests = async () => {
  const res = await fetch(`${sb.base_url}/_sandbox/logs?kind=requests`, { headers: { authorization: `Bearer ${sb.admin_token}` } });
  return (await res.json()).data.filter((e) => e.key_id === sb.keys.live.key_id);
};

const dir = mkdtempSync(join(tmpdir(), 'pace-bench-'));
// No background rounds: the question's own calls are the ones timed.
const env = { ...sb.serverEnv(dir), SVC_POLL_SECONDS: '0' };
const server = await startOurHttpServer(env, ['--mirror', join(dir, 'books.sqlite')]);
try {
  const t0 = performance.now();
  const made = await rpc(server.url, 'tools/call', QUESTION, true, 'pace-bench');
  if (made.resultType !== 'task') throw new Error(`no task: the answer came at once (${JSON.stringify(made).slice(0, 200)})`);
  let task = made;
  const said = new Set();
  const polls = new Set();
  while (task.status === 'working') {
    if (task.statusMessage) said.add(task.statusMessage.replace(/\d+/g, 'N'));
    polls.add(task.pollIntervalMs);
    await sleep(task.pollIntervalMs ?? 2_000);
    task = await rpc(server.url, 'tasks/get', { taskId: made.taskId }, true, 'pace-bench');
  }
  const ms = performance.now() - t0;
  if (task.status !== 'completed') throw new Error(`the task ended ${task.status}: ${task.statusMessage ?? ''}`);
  if (task.result.isError) throw new Error(`the task's answer is an error: ${JSON.stringify(task.result.content).slice(0, 400)}`);
  const log = await requests();
  const answered = log.filter((e) => e.status !== 429).length;
  const refused = log.length - answered;
  const windows = Math.ceil(ms / 60_000);
  const floorMs = (answered / 120) * 60_000;
  // The service's windows are fixed, from each one's first call: the last window's calls need no whole minute.
  const windowsFloorMs = (Math.ceil(answered / 120) - 1) * 60_000;
  const lines = task.result.structuredContent.lines;
  console.log(
    `cold task: ${QUESTION.name} ${JSON.stringify(QUESTION.arguments)}, the lines of ${lines.with_lines} of ${lines.invoices} invoices, ` +
      `${answered} service calls: whole answer in ${(ms / 1000).toFixed(1)} s against a quota floor of ${(floorMs / 1000).toFixed(1)} s, ` +
      `${(ms / floorMs).toFixed(3)}x (goal <= ${GOAL}x) ${ms / floorMs <= GOAL ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `the same against the fixed windows' floor (${Math.ceil(answered / 120) - 1} whole windows, ${(windowsFloorMs / 1000).toFixed(0)} s): ${(ms / windowsFloorMs).toFixed(3)}x`,
  );
  console.log(`429s met: ${refused} over ${windows} windows (goal <= 1 a window) ${refused <= windows ? 'OK' : 'MISSED'}`);
  console.log(`pollIntervalMs seen: ${[...polls].sort((a, b) => a - b).join(', ')}; statuses: ${[...said].join(' | ')}`);
} finally {
  server.child.kill('SIGTERM');
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
}
