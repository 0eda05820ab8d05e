// MCP Tasks (the io.modelcontextprotocol/tasks extension, revision 2026-07-28) on one server instance: a
// client that declares the extension on a tools/call of an answer tool gets a task when the answer is not
// whole within the short wait; tasks/get and tasks/cancel answer from the books' store, for the task's owner
// only. Other clients, and the 2025 era (whose task methods the SDK does not run), answer as they always did:
// their calls never reach this file.
import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ToolContext } from '../../../tools/context.js';
import { inLane, type KeyPace } from '../../api/lane.js';
import { isUnreachable } from '../../core/unreachable.js';
import type { StoredTask } from '../../store/store.js';
import type { Books, EnsureFreshOptions } from '../../store/types.js';
import type { Businesses, BusinessUnit } from '../businesses.js';
import { loadTool, run, runtimeOf, type TaskCalls, type ToolRuntime } from '../register-tools.js';
import type { ToolDefinition } from '../registry.js';
import type { TaskBound } from './task-bound.js';
import type { TaskRuns, TaskWork } from './task-runs.js';
import { createdTask, detailedTask, waitingWords } from './task-words.js';

export interface TaskServing {
  runs: TaskRuns;
  /** Which calls become tasks: a few per owner, the same question joined (shared by the instances, as `runs`). */
  bound: TaskBound;
  /** Each business keeps its tasks in its own books, and runs them on its own unit. */
  businesses: Businesses;
  /** Tools whose answers may wait on the service's pace: those that read the books. */
  taskTools: ReadonlySet<string>;
  /** Who asks: their grant (hosted), or the one user of a server on its keys (desktop, self-hosted HTTP). */
  owner: string;
}

/** The books, made whole for a task: every missing line read while it waits, and stopped with it. */
function wholeBooks(books: Books, signal: AbortSignal): Books {
  return {
    ...books,
    ensureFresh: (kinds, opts: EnsureFreshOptions = {}) =>
      books.ensureFresh(kinds, { ...opts, wholeLines: true, signal: opts.signal ? AbortSignal.any([opts.signal, signal]) : signal }),
  };
}

/** The tool's answer as a task computes it: the same handler, on books made whole; a lost database thrown on (TaskRuns waits it out). */
export function taskWork(tool: ToolDefinition, runtime: ToolRuntime, args: Record<string, unknown>, views: boolean): TaskWork {
  return (signal, status, deadlineMs) => {
    const books = runtime.context.books;
    const context: ToolContext = {
      ...runtime.context,
      ...(books ? { books: wholeBooks(books, signal) } : {}),
      progress: (update) => status(update.message, update.expectedMs),
    };
    // Its every service call in the key's task lane, waiting on the limit as long as the task lives.
    const lane = { taskDeadlineMs: deadlineMs, waiting: (leftMs: number, pace: KeyPace) => status(...waitingWords(leftMs, pace)) };
    return inLane(lane, () => run(tool, runtime, args, context, views, isUnreachable));
  };
}

/** What a task keeps of its call: the arguments as checked, and whether the result carries the view's data. */
const callOf = (args: Record<string, unknown>, views: boolean): Record<string, unknown> => ({ arguments: args, views });

async function workOf(task: StoredTask, runtime: ToolRuntime): Promise<TaskWork> {
  const tool = await loadTool(task.tool);
  return taskWork(tool, runtime, task.args.arguments as Record<string, unknown>, task.args.views === true);
}

const unknownTask = (id: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${id}: it is unknown, expired, or not yours`);

/** The task `taskId` of `owner`, and the business whose books keep it; null when none has it. */
async function findTask(
  kept: readonly { unit: BusinessUnit; books: Books }[],
  taskId: string,
  owner: string,
  now: number,
): Promise<{ task: StoredTask; unit: BusinessUnit; books: Books } | null> {
  for (const { unit, books } of kept) {
    const task = await books.tasks.get(taskId, now);
    if (task && task.owner === owner) return { task, unit, books };
  }
  return null;
}

/**
 * tasks/get and tasks/cancel on the instance, and what its calls that opt into tasks run (register-tools.ts
 * asks, on such a call only); undefined without books to keep tasks in.
 */
export function serveTasks(server: McpServer, serving: TaskServing): TaskCalls | undefined {
  const { runs, owner } = serving;
  const kept = serving.businesses.units.flatMap((unit) => (unit.context.books ? [{ unit, books: unit.context.books }] : []));
  if (kept.length === 0) return undefined;
  const runtime = (unit: BusinessUnit): ToolRuntime => runtimeOf(unit, false);
  const idParams = { params: z.object({ taskId: z.string().max(100) }).passthrough() };
  server.server.setRequestHandler('tasks/get', idParams, async ({ taskId }) => {
    const found = await findTask(kept, taskId, owner, runs.now());
    if (!found) throw unknownTask(taskId);
    const { task, unit, books } = found;
    if (task.status === 'working' && (await runs.takeOver(books.tasks, task, await workOf(task, runtime(unit))))) {
      return detailedTask((await books.tasks.get(taskId, runs.now())) ?? task, runs.pollIntervalMs(taskId));
    }
    return detailedTask(task, runs.pollIntervalMs(taskId));
  });
  server.server.setRequestHandler('tasks/cancel', idParams, async ({ taskId }) => {
    const found = await findTask(kept, taskId, owner, runs.now());
    if (!found) throw unknownTask(taskId);
    const { task, books } = found;
    if (!(await books.tasks.cancel(taskId, owner, runs.now()))) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} has ended (${task.status}): there is nothing to cancel`);
    }
    runs.stopHere(taskId);
    return {};
  });
  return {
    tools: serving.taskTools,
    async start(unit, tool, args, views) {
      const books = unit.context.books;
      if (!books) return { result: await run(tool, runtime(unit), args, unit.context, views) };
      const work = taskWork(tool, runtime(unit), args, views);
      const started = await serving.bound.admit(books.tasks, owner, tool.name, callOf(args, views), work);
      if (started === null) return null;
      return 'result' in started ? { result: started.result } : { task: createdTask(started.task, runs.pollIntervalMs(started.task.id)) };
    },
  };
}
