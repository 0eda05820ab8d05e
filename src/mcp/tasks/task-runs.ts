// The tasks this process runs. A long answer starts as a plain call; when it is not done within the short
// wait it becomes a task, kept in the books' store, and runs on here while its holder (this process) beats
// every second. Any process answers tasks/get from the store; one that finds a working task whose holder
// stopped beating, or whose holder's process on this machine is gone (a desktop server restarted after a
// crash), takes it over and runs it to the end (the lines read so far are stored, so none is read again). A
// cancel is seen at once here, and by a holder elsewhere at its next beat.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { pause, REAL_TIMERS, type Timers } from '../../core/timers.js';
import { isUnreachable, RETRY_AFTER_SECONDS } from '../../core/unreachable.js';
import { holderIsGone, newHolder } from '../../store/lease-holder.js';
import type { StoredTask, TaskTable } from '../../store/store.js';
import { POLL_INTERVAL_MS } from './task-words.js';

/**
 * A task's work: the tool's answer, made whole, by `deadlineMs` (the task's end); `status` says what it is
 * doing now and, when it can tell, about how long the rest takes (ms). It rejects with a lost database
 * (core/unreachable.ts) rather than answering it: the run waits that out and does the work again.
 */
export type TaskWork = (
  signal: AbortSignal,
  status: (message: string, expectedMs?: number) => void,
  deadlineMs: number,
) => Promise<CallToolResult>;

/** What a running task last said, and when it expects to end (epoch ms; null when it cannot tell). */
interface Said {
  message: string | null;
  told: string | null;
  endsAt: number | null;
}

/** How often to poll a task expected to end in `leftMs`: half of it, between a quarter second and five seconds. */
export function pollIntervalFor(leftMs: number | null): number {
  if (leftMs === null) return POLL_INTERVAL_MS;
  return Math.min(5_000, Math.max(250, Math.round(leftMs / 2)));
}

export interface TaskRunsOptions {
  now?: () => number;
  timers?: Timers;
  /** How long a call waits for its answer before it becomes a task (ms). */
  shortWaitMs?: number;
  /** How often a holder says it is still at work (ms). */
  beatMs?: number;
  /** A holder silent this long is taken to be gone (ms). */
  staleMs?: number;
  /** How long a task is kept after it was made (ms). */
  ttlMs?: number;
}

export const TASK_TTL_MS = 60 * 60_000;

export type Started = { result: CallToolResult } | { task: StoredTask };

export class TaskRuns {
  /** Who runs tasks here: `host/pid/random`, so that a process on this machine can tell when this one is gone. */
  readonly holder = newHolder();
  readonly #running = new Map<string, AbortController>();
  readonly #said = new Map<string, Said>();
  readonly now: () => number;
  readonly #timers: Timers;
  readonly #shortWaitMs: number;
  readonly #beatMs: number;
  readonly staleMs: number;
  readonly #ttlMs: number;

  constructor(options: TaskRunsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.#timers = options.timers ?? REAL_TIMERS;
    this.#shortWaitMs = options.shortWaitMs ?? 1_000;
    this.#beatMs = options.beatMs ?? 1_000;
    this.staleMs = options.staleMs ?? 5_000;
    this.#ttlMs = options.ttlMs ?? TASK_TTL_MS;
  }

  /** Runs `work`; its result when it ends within the short wait, else the task it became (running on). */
  async start(tasks: TaskTable, owner: string, tool: string, args: Record<string, unknown>, work: TaskWork): Promise<Started> {
    const abort = new AbortController();
    const status: Said = { message: null, told: null, endsAt: null };
    // Its calls may wait on the key's limit as long as the task is kept (a little less: it is made after the short wait).
    const running = this.outlasting(work)(abort.signal, this.#saying(status), this.now() + this.#ttlMs);
    let timer: unknown;
    const waited = new Promise<null>((resolve) => (timer = this.#timers.set(() => resolve(null), this.#shortWaitMs, true)));
    const first = await Promise.race([running.then((result) => ({ result })), waited]);
    this.#timers.clear(timer);
    if (first) return first;
    const now = this.now();
    const task: StoredTask = {
      id: randomUUID(),
      owner,
      tool,
      args,
      status: 'working',
      message: status.message,
      result: null,
      createdMs: now,
      updatedMs: now,
      expiresMs: now + this.#ttlMs,
      holder: this.holder,
      beatMs: now,
    };
    status.told = status.message;
    try {
      await tasks.create(task);
    } catch (err) {
      abort.abort();
      throw err;
    }
    this.#follow(tasks, task.id, running, abort, status);
    return { task };
  }

  /** Takes over a working task whose holder is gone, and runs it here; false when it is not gone or another took it. */
  async takeOver(tasks: TaskTable, task: StoredTask, work: TaskWork): Promise<boolean> {
    if (task.status !== 'working' || this.#running.has(task.id)) return false;
    const now = this.now();
    const gone = task.holder !== null && holderIsGone(task.holder) ? task.holder : null;
    if (task.beatMs >= now - this.staleMs && gone === null) return false;
    if (!(await tasks.claim(task.id, this.holder, { staleBeforeMs: now - this.staleMs, gone }, now))) return false;
    const abort = new AbortController();
    const status: Said = { message: null, told: task.message, endsAt: null };
    this.#follow(tasks, task.id, this.outlasting(work)(abort.signal, this.#saying(status), task.expiresMs), abort, status);
    return true;
  }

  /**
   * The work, done again after a wait each time the database was lost under it: what it stored stays stored, so
   * the lines it read are not read again. It ends when stopped, or with the task's time to live. (start and
   * takeOver run work so; wrapping twice changes nothing, the inner one waiting every loss out.)
   */
  outlasting(work: TaskWork): TaskWork {
    return async (signal, status, deadlineMs) => {
      for (;;) {
        try {
          return await work(signal, status, deadlineMs);
        } catch (err) {
          if (!isUnreachable(err) || signal.aborted) throw err;
          status(`the books' database is briefly unreachable: trying again in ${RETRY_AFTER_SECONDS} s`);
          await pause(this.#timers, RETRY_AFTER_SECONDS * 1000, signal);
        }
      }
    };
  }

  /** The poll interval for a task: from when it is expected to end, when it runs here and can tell. */
  pollIntervalMs(id: string): number {
    const endsAt = this.#said.get(id)?.endsAt ?? null;
    return pollIntervalFor(endsAt === null ? null : endsAt - this.now());
  }

  #saying(status: Said): (message: string, expectedMs?: number) => void {
    return (message, expectedMs) => {
      status.message = message;
      status.endsAt = expectedMs === undefined ? null : this.now() + expectedMs;
    };
  }

  /** Stops this process's run of the task at once (the store says cancelled already). */
  stopHere(id: string): void {
    this.#running.get(id)?.abort();
  }

  #follow(tasks: TaskTable, id: string, running: Promise<CallToolResult>, abort: AbortController, status: Said): void {
    this.#running.set(id, abort);
    this.#said.set(id, status);
    let beat: unknown = null;
    const next = (): void => {
      beat = this.#timers.set(
        () => {
          const message = status.message !== status.told ? status.message : null;
          status.told = status.message;
          tasks
            .beat(id, this.holder, message, this.now())
            .then((now) => {
              // Cancelled, or taken over by another process (this one was taken for gone): stop calling.
              if (now !== 'working') abort.abort();
            })
            .catch(() => undefined)
            .finally(() => {
              if (!abort.signal.aborted) next();
            });
        },
        this.#beatMs,
        true,
      );
    };
    next();
    void running
      .then(
        (result) =>
          abort.signal.aborted ? false : tasks.finish(id, this.holder, 'completed', result as Record<string, unknown>, this.now()),
        () => (abort.signal.aborted ? false : tasks.finish(id, this.holder, 'failed', null, this.now())),
      )
      .catch(() => undefined)
      .finally(() => {
        if (beat !== null) this.#timers.clear(beat);
        abort.abort();
        this.#running.delete(id);
        this.#said.delete(id);
      });
  }
}
