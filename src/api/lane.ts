// Whose call this is, carried with the work that makes it: a task's every service call (its reads, the syncs
// and line reads it waits for) goes in the key's task lane, however deep in the books it is made.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The pacer's lanes, served in this order: a person's call, a task's, the server's own background. */
export type Lane = 'person' | 'task' | 'background';

export interface TaskLane {
  /** Epoch ms past which the task is gone: its calls may wait on the key's limit until then. */
  deadlineMs: number;
  /** Told when one of its calls waits on the key's limit, until when (epoch ms), and the key's pace. */
  waiting(untilMs: number, pace: KeyPace): void;
}

/** The key's pace as the service stated it: calls per window of `windowMs`. */
export interface KeyPace {
  limit: number | null;
  windowMs: number;
}

const ambient = new AsyncLocalStorage<TaskLane>();

/** Runs `work` as a task's: every service call it makes, however deep, goes in the task lane. */
export function asTask<T>(lane: TaskLane, work: () => T): T {
  return ambient.run(lane, work);
}

/** The task the current work belongs to, if any. */
export function currentTask(): TaskLane | undefined {
  return ambient.getStore();
}

/** "120 calls a minute", "20 calls per 5 s": the key's pace in a person's words. */
export function paceWords(pace: KeyPace): string {
  if (pace.limit === null) return "the key's limit";
  const seconds = pace.windowMs / 1000;
  const per = seconds === 60 ? 'a minute' : `per ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  return `${pace.limit} calls ${per}`;
}
