// MCP tasks (io.modelcontextprotocol/tasks, revision 2026-07-28) on the built server over Streamable HTTP,
// against the sandbox at --scale 10 (rate limit lifted, so the bench takes seconds, not the minutes a key's
// 120 calls a minute would):
//   - a product question on a cold mirror (a new SQLite file, no background rounds), asked as a task and
//     polled to its end: the service calls its lines took against the invoices of its range (all of them
//     missing on a cold mirror)                                                              goal: equal
//   - once its lines are read, the task's answer (tasks/get of the completed task) against the same answer
//     on the now warm mirror asked by a client without the extension (tools/call), medians of alternating
//     rounds                                                                                  goal <= 1.1x
//   - the same tools/call with the extension declared on the warm mirror (whole within the short wait, so
//     answered at once, no task) against the one without                                    goal <= 1.1x
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxProcess } from './sandbox-process.mjs';
import { rpc } from './support/mcp-rpc.mjs';
import { startOurHttpServer } from './support/our-http-server.mjs';

const GOAL = 1.1;
const ROUNDS = 7;
const CALLS = 20;
const QUESTION = { name: 'report_sales', arguments: { range: 'last_quarter', group_by: 'product' } };
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sb = await startSandboxProcess(['--scale', '10', '--rate-limit', '1000000000', '--sign-in-limit', '1000']);
const admin = async (method, path) => {
  const res = await fetch(`${sb.base_url}/_sandbox${path}`, { method, headers: { authorization: `Bearer ${sb.admin_token}` } });
  return res.json();
};
const lineReads = async () =>
  (await admin('GET', '/logs?kind=requests')).data.filter((e) => /^\/api\/v1\/invoices\/\d+$/.test(e.path) && e.status === 200).length;

const dir = mkdtempSync(join(tmpdir(), 'tasks-bench-'));
const env = { ...sb.serverEnv(dir), SVC_POLL_SECONDS: '0' };
const server = await startOurHttpServer(env, ['--mirror', join(dir, 'books.sqlite')]);
try {
  // The question's range, from the raw API: its invoices, not draft or void (every one's lines are missing).
  const before = await lineReads();
  const t0 = performance.now();
  const made = await rpc(server.url, 'tools/call', QUESTION, true);
  if (made.resultType !== 'task') throw new Error(`no task: the answer came at once (${JSON.stringify(made).slice(0, 200)})`);
  let task = made;
  while (task.status === 'working') {
    await sleep(task.pollIntervalMs ?? 500);
    task = await rpc(server.url, 'tasks/get', { taskId: made.taskId }, true);
  }
  const coldMs = performance.now() - t0;
  if (task.status !== 'completed') throw new Error(`the task ended ${task.status}: ${task.statusMessage ?? ''}`);
  const reads = (await lineReads()) - before;
  const lines = task.result.structuredContent.lines;
  console.log(
    `cold task: ${QUESTION.name} ${JSON.stringify(QUESTION.arguments)} done in ${(coldMs / 1000).toFixed(1)} s; ` +
      `line reads ${reads} for ${lines.invoices} invoices whose lines were missing (goal: equal) ${reads === lines.invoices ? 'OK' : 'MISSED'}`,
  );

  const stored = [];
  const warm = [];
  const declared = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [times, ask] of [
      [stored, () => rpc(server.url, 'tasks/get', { taskId: made.taskId }, true)],
      [warm, () => rpc(server.url, 'tools/call', QUESTION, false)],
      [declared, () => rpc(server.url, 'tools/call', QUESTION, true)],
    ]) {
      const t = performance.now();
      for (let i = 0; i < CALLS; i++) {
        const r = await ask();
        if (r.resultType === 'task' && r.status !== 'completed') throw new Error('a warm answer became a task');
      }
      times.push((performance.now() - t) / CALLS);
    }
  }
  const [s, w, d] = [median(stored), median(warm), median(declared)];
  console.log(
    `the task's answer once its lines are read: ${s.toFixed(2)} ms against ${w.toFixed(2)} ms for the warm tools/call, ` +
      `${(s / w).toFixed(2)}x (goal <= ${GOAL}x) ${s / w <= GOAL ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `tools/call with the extension declared on a warm mirror: ${d.toFixed(2)} ms, ${(d / w).toFixed(2)}x the call without (goal <= ${GOAL}x) ${
      d / w <= GOAL ? 'OK' : 'MISSED'
    }`,
  );
} finally {
  server.child.kill('SIGTERM');
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
}
