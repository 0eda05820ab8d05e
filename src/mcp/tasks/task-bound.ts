// Which calls that opt into tasks may become one: the same question from the same owner while its task works
// joins that task, and past TASKS_PER_OWNER working tasks of an owner a call answers as for a client without
// tasks. So a flood of task calls holds at most a few tasks' reads and store writes, whatever it asks.
import { holderIsGone } from '../../store/lease-holder.js';
import type { StoredTask, TaskTable } from '../../store/store.js';
import type { Started, TaskRuns, TaskWork } from './task-runs.js';

/** At most this many tasks of one owner work at once (docs/tasks.md says so). */
export const TASKS_PER_OWNER = 3;

/** A question of an owner this process is answering as a task: in its short wait, or stored and running here. */
interface Asked {
  outcome: Promise<Started | null>;
  /** The task's id once it is stored. */
  id: string | null;
}

/** One question: the tool and its arguments as checked (in the schema's order, so the same question reads the same). */
const questionOf = (tool: string, args: Record<string, unknown>): string => `${tool} ${JSON.stringify(args)}`;

export class TaskBound {
  /** By owner, then by question; an owner with none at work here has no entry. */
  readonly #asked = new Map<string, Map<string, Asked>>();

  constructor(private readonly runs: TaskRuns) {}

  /**
   * Runs the call as a task (TaskRuns.start), or joins the working task of the same question, or answers null
   * when the owner has TASKS_PER_OWNER tasks at work already: the call then answers as for a client without tasks.
   */
  admit(tasks: TaskTable, owner: string, tool: string, args: Record<string, unknown>, work: TaskWork): Promise<Started | null> {
    let asked = this.#asked.get(owner);
    if (!asked) this.#asked.set(owner, (asked = new Map()));
    const key = questionOf(tool, args);
    const same = asked.get(key);
    if (same) return same.outcome;
    // At the bound (counted before anything is awaited, so that calls arriving together cannot all pass): a join only.
    if (asked.size >= TASKS_PER_OWNER)
      return tasks.working(owner, this.runs.now()).then((working) => this.#joined(tasks, working, key, work));
    const entry: Asked = { outcome: Promise.resolve(null), id: null };
    asked.set(key, entry);
    const forget = (): void => {
      if (asked.get(key) === entry) asked.delete(key);
      if (asked.size === 0 && this.#asked.get(owner) === asked) this.#asked.delete(owner);
    };
    // Its place is let go when its work ends here: answered within the short wait, done, failed or stopped (a
    // database lost meanwhile waited out inside, not an end).
    const tracked: TaskWork = (...given) => {
      const running = this.runs.outlasting(work)(...given);
      running.then(forget, forget);
      return running;
    };
    entry.outcome = this.#admitted(tasks, { owner, tool, args, key }, entry, tracked, asked).then(
      (started) => {
        if (started === null || !('task' in started) || started.task.id !== entry.id) forget();
        return started;
      },
      (err: unknown) => {
        forget();
        throw err;
      },
    );
    return entry.outcome;
  }

  async #admitted(
    tasks: TaskTable,
    call: { owner: string; tool: string; args: Record<string, unknown>; key: string },
    entry: Asked,
    work: TaskWork,
    asked: Map<string, Asked>,
  ): Promise<Started | null> {
    const now = this.runs.now();
    const working = await tasks.working(call.owner, now);
    const joined = await this.#joined(tasks, working, call.key, work);
    if (joined) return joined;
    const here = new Set([...asked.values()].map((a) => a.id));
    const elsewhere = working.filter((task) => !here.has(task.id) && this.#atWork(task, now)).length;
    if (elsewhere + asked.size > TASKS_PER_OWNER) return null;
    const started = await this.runs.start(tasks, call.owner, call.tool, call.args, work);
    if ('task' in started) entry.id = started.task.id;
    return started;
  }

  /**
   * The same question's working task in the store (made by another process, or before this one restarted), joined
   * and run here when its holder is gone; null when there is none.
   */
  async #joined(tasks: TaskTable, working: StoredTask[], key: string, work: TaskWork): Promise<Started | null> {
    const stored = working.find((task) => questionOf(task.tool, task.args) === key);
    if (!stored) return null;
    await this.runs.takeOver(tasks, stored, work);
    return { task: stored };
  }

  /** Its holder still beats, and is not known to be gone: a task that holds a place. */
  #atWork(task: StoredTask, now: number): boolean {
    return task.beatMs >= now - this.runs.staleMs && !(task.holder !== null && holderIsGone(task.holder));
  }
}
