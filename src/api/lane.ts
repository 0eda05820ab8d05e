// Whose work a service call is, carried with the work however deep in the books it is made: a task's calls go
// in the key's task lane and wait as long as it lives; a person's call hears when it waits on the key's limit.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The pacer's lanes, served in this order: a person's call, a task's, the server's own background. */
export type Lane = 'person' | 'task' | 'background';

/** Who the work is for: a task's (with its end), or a person's call; either is told when a call waits. */
export interface WorkLane {
  /** Epoch ms past which the task is gone: its calls may wait on the key's limit until then. Absent: a person's. */
  taskDeadlineMs?: number;
  /** Told when one of its calls waits on the key's limit, for how long (ms), and the key's pace. */
  waiting(leftMs: number, pace: KeyPace): void;
}

/** The key's pace as the service stated it: calls per window of `windowMs`. */
export interface KeyPace {
  limit: number | null;
  windowMs: number;
}

const ambient = new AsyncLocalStorage<WorkLane>();

/** Runs `work` in `lane`: every service call it makes, however deep, is the lane's (a task's, or a person's). */
export function inLane<T>(lane: WorkLane, work: () => T): T {
  return ambient.run(lane, work);
}

/** The lane the current work runs in, if any was set (a call with none is a person's). */
export function currentLane(): WorkLane | undefined {
  return ambient.getStore();
}

/** "120 calls a minute", "20 calls per 5 s": the key's pace in a person's words. */
export function paceWords(pace: KeyPace): string {
  if (pace.limit === null) return "the key's limit";
  // A window learnt from answers is a few ms over its length: whole seconds are as fine as it is said (tenths
  // under ten seconds).
  const seconds = pace.windowMs >= 10_000 ? Math.round(pace.windowMs / 1000) : Math.round(pace.windowMs / 100) / 10;
  const per = seconds === 60 ? 'a minute' : `per ${seconds} s`;
  return `${pace.limit} calls ${per}`;
}
