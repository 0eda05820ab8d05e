// MCP Tasks (the io.modelcontextprotocol/tasks extension, revision 2026-07-28) on one server instance: a
// client that declares the extension on a tools/call of an answer tool gets a task when the answer is not
// whole within the short wait; tasks/get and tasks/cancel answer from the books' store, for the task's owner
// only. Other clients, and the 2025 era (whose task methods the SDK does not run), answer as they always did:
// their calls never reach this file.
import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ToolContext } from '../../../tools/context.js';
import type { ToolDefinition } from '../../../tools/index.js';
import { inLane, type KeyPace } from '../../api/lane.js';
import type { StoredTask } from '../../books/store.js';
import type { Books, EnsureFreshOptions } from '../../books/types.js';
import { loadTool, run, type TaskCalls, type ToolRuntime } from '../register-tools.js';
import type { TaskRuns, TaskWork } from './task-runs.js';
import { createdTask, detailedTask, waitingWords } from './task-words.js';

export interface TaskServing {
  runs: TaskRuns;
  runtime: ToolRuntime;
  /** Tools whose answers may wait on the service's pace: those that read the books. */
  taskTools: ReadonlySet<string>;
  /** Who asks: their grant (hosted), their connection, or the server's one user (stateless, desktop). */
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

/** The tool's answer as a task computes it: the same handler, on books made whole. */
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
    return inLane(lane, () => run(tool, runtime, args, context, views));
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

/**
 * tasks/get and tasks/cancel on the instance, and what its calls that opt into tasks run (register-tools.ts
 * asks, on such a call only); undefined without books to keep tasks in.
 */
export function serveTasks(server: McpServer, serving: TaskServing): TaskCalls | undefined {
  const { runs, runtime, owner } = serving;
  const books = runtime.context.books;
  if (!books) return undefined;
  const idParams = { params: z.object({ taskId: z.string().max(100) }).passthrough() };
  server.server.setRequestHandler('tasks/get', idParams, async ({ taskId }) => {
    const task = await books.tasks.get(taskId, runs.now());
    if (!task || task.owner !== owner) throw unknownTask(taskId);
    if (task.status === 'working' && (await runs.takeOver(books.tasks, task, await workOf(task, runtime)))) {
      return detailedTask((await books.tasks.get(taskId, runs.now())) ?? task, runs.pollIntervalMs(taskId));
    }
    return detailedTask(task, runs.pollIntervalMs(taskId));
  });
  server.server.setRequestHandler('tasks/cancel', idParams, async ({ taskId }) => {
    const task = await books.tasks.get(taskId, runs.now());
    if (!task || task.owner !== owner) throw unknownTask(taskId);
    if (!(await books.tasks.cancel(taskId, owner, runs.now()))) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} has ended (${task.status}): there is nothing to cancel`);
    }
    runs.stopHere(taskId);
    return {};
  });
  return {
    tools: serving.taskTools,
    async start(tool, args, views) {
      const work = taskWork(tool, runtime, args, views);
      const started = await runs.start(books.tasks, owner, tool.name, callOf(args, views), work);
      return 'result' in started ? { result: started.result } : { task: createdTask(started.task, runs.pollIntervalMs(started.task.id)) };
    },
  };
}
