// The Tasks extension's words on the wire (io.modelcontextprotocol/tasks, protocol revision 2026-07-28), and
// how a stored task reads as one: a task handle for tools/call, a detailed task for tasks/get.
import { type KeyPace, paceWords } from '../../api/lane.js';
import type { StoredTask } from '../../store/store.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client is asked to poll (ms). */
export const POLL_INTERVAL_MS = 2_000;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The fields every task carries; a working one, how often to poll it (ms). */
export function taskFields(task: StoredTask, pollIntervalMs = POLL_INTERVAL_MS) {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.message ? { statusMessage: task.message } : {}),
    createdAt: iso(task.createdMs),
    lastUpdatedAt: iso(task.updatedMs),
    // From creation, as the extension's Task.ttlMs is: the task is kept until createdAt + ttlMs.
    ttlMs: task.expiresMs - task.createdMs,
    ...(task.status === 'working' ? { pollIntervalMs } : {}),
  };
}

/** tools/call's answer when it made a task. */
export const createdTask = (task: StoredTask, pollIntervalMs?: number) => ({ resultType: 'task', ...taskFields(task, pollIntervalMs) });

/** tasks/get's answer: the task, with the tool's result once it completed. */
export function detailedTask(task: StoredTask, pollIntervalMs?: number): Record<string, unknown> {
  const fields = taskFields(task, pollIntervalMs);
  if (task.status === 'completed') return { ...fields, result: { resultType: 'complete', ...task.result } };
  if (task.status === 'failed') return { ...fields, error: { code: -32603, message: 'the task could not finish: ask again' } };
  return fields;
}

/**
 * A task's status while one of its calls waits `leftMs` for the key's window: "waiting for the key's limit:
 * resumes in 41 s (120 calls a minute)", and how long that is (ms).
 */
export function waitingWords(leftMs: number, pace: KeyPace): [string, number] {
  const seconds = Math.max(1, Math.ceil(leftMs / 1000));
  return [`waiting for the key's limit: resumes in ${seconds} s (${paceWords(pace)})`, Math.max(0, leftMs)];
}
