// The Tasks extension's words on the wire (io.modelcontextprotocol/tasks, protocol revision 2026-07-28), and
// how a stored task reads as one: a task handle for tools/call, a detailed task for tasks/get.
import type { StoredTask } from '../../books/store.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client is asked to poll (ms). */
export const POLL_INTERVAL_MS = 2_000;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The fields every task carries. */
export function taskFields(task: StoredTask) {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.message ? { statusMessage: task.message } : {}),
    createdAt: iso(task.createdMs),
    lastUpdatedAt: iso(task.updatedMs),
    // From creation, as the extension's Task.ttlMs is: the task is kept until createdAt + ttlMs.
    ttlMs: task.expiresMs - task.createdMs,
    ...(task.status === 'working' ? { pollIntervalMs: POLL_INTERVAL_MS } : {}),
  };
}

/** tools/call's answer when it made a task. */
export const createdTask = (task: StoredTask) => ({ resultType: 'task', ...taskFields(task) });

/** tasks/get's answer: the task, with the tool's result once it completed. */
export function detailedTask(task: StoredTask): Record<string, unknown> {
  const fields = taskFields(task);
  if (task.status === 'completed') return { ...fields, result: { resultType: 'complete', ...task.result } };
  if (task.status === 'failed') return { ...fields, error: { code: -32603, message: 'the task could not finish: ask again' } };
  return fields;
}
