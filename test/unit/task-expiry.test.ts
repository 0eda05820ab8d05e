// A task's life in the books' store, on a clock the test moves: made when the answer is not done within the
// short wait, kept with its result, and forgotten an hour after it was made (TASK_TTL_MS), working or not.
import { afterEach, describe, expect, it } from 'vitest';
import { openMirrorStore } from '../../src/books/open-store.js';
import { TASK_TTL_MS, TaskRuns } from '../../src/mcp/tasks/task-runs.js';
import { detailedTask } from '../../src/mcp/tasks/task-words.js';
import type { MirrorStore } from '../../src/store/store.js';
import { manualTime } from '../support/test-time.js';

let store: MirrorStore | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

/** Work the test ends when it likes: an answer, or a stop when the task is cancelled. */
function heldWork() {
  let finish: (text: string) => void = () => undefined;
  let stopped: AbortSignal | null = null;
  const work = (signal: AbortSignal) =>
    new Promise<{ content: { type: 'text'; text: string }[] }>((resolve, reject) => {
      stopped = signal;
      finish = (text) => resolve({ content: [{ type: 'text', text }] });
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  return { work, finish: (text: string) => finish(text), stopped: () => stopped?.aborted === true };
}

describe('tasks expire', () => {
  it('an hour after they were made: a completed one with its result, and one still working', async () => {
    store = await openMirrorStore({ location: { kind: 'memory' }, identity: 'https://svc.example|tasks', warn: () => undefined });
    const time = manualTime(Date.parse('2027-03-15T00:00:00Z'));
    const runs = new TaskRuns({ now: time.now, timers: time.timers });
    expect(TASK_TTL_MS).toBe(60 * 60_000);

    const done = heldWork();
    const starting = runs.start(store.tasks, 'grant:a', 'report_sales', { arguments: {}, views: false }, done.work);
    time.advance(1_000);
    const made = await starting;
    if (!('task' in made)) throw new Error('answered within the short wait');
    const id = made.task.id;
    expect(detailedTask(made.task)).toMatchObject({ status: 'working', ttlMs: TASK_TTL_MS, pollIntervalMs: 2_000 });
    done.finish('the whole answer');
    await until(async () => (await store!.tasks.get(id, time.now()))?.status === 'completed');
    // ttlMs counts from the task's creation (the extension's Task.ttlMs), so it says the same at every poll.
    time.advance(TASK_TTL_MS);
    const kept = await store.tasks.get(id, time.now());
    expect(kept && detailedTask(kept)).toMatchObject({
      status: 'completed',
      ttlMs: TASK_TTL_MS,
      result: { resultType: 'complete', content: [{ type: 'text', text: 'the whole answer' }] },
    });
    time.advance(1);
    expect(await store.tasks.get(id, time.now())).toBeNull();

    const slow = heldWork();
    const startingSlow = runs.start(store.tasks, 'grant:a', 'report_sales', { arguments: {}, views: false }, slow.work);
    time.advance(1_000);
    const working = await startingSlow;
    if (!('task' in working)) throw new Error('answered within the short wait');
    time.advance(TASK_TTL_MS);
    expect(await store.tasks.get(working.task.id, time.now())).not.toBeNull();
    time.advance(1);
    expect(await store.tasks.get(working.task.id, time.now())).toBeNull();
    // Its holder stops at its next beat (no more service calls for a task no one can read), and no one can
    // cancel or take it over any more.
    expect(slow.stopped()).toBe(false);
    await until(async () => {
      time.advance(1_000);
      return slow.stopped();
    });
    expect(await store.tasks.cancel(working.task.id, 'grant:a', time.now())).toBe(false);
    expect(await store.tasks.claim(working.task.id, 'another', { staleBeforeMs: time.now(), gone: working.task.holder }, time.now())).toBe(
      false,
    );
  });

  it('an answer done within the short wait makes no task', async () => {
    store = await openMirrorStore({ location: { kind: 'memory' }, identity: 'https://svc.example|tasks', warn: () => undefined });
    const time = manualTime();
    const runs = new TaskRuns({ now: time.now, timers: time.timers });
    const quick = heldWork();
    const starting = runs.start(store.tasks, 'local', 'report_sales', { arguments: {}, views: false }, quick.work);
    quick.finish('at once');
    expect(await starting).toEqual({ result: { content: [{ type: 'text', text: 'at once' }] } });
  });
});

/** The store's writes land a few turns later: looks again until `seen` (bounded). */
async function until(seen: () => Promise<boolean>): Promise<void> {
  for (let n = 0; n < 200; n++) {
    if (await seen()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('not seen');
}
