// Which calls that opt into tasks become one (task-bound.ts), on a store in memory and a clock the test moves:
// the same question from the same owner while its task works joins it, on this process or another on the store;
// past three working tasks an owner's call answers as for a client without tasks (null), another owner's not;
// and a task whose holder stopped beating holds no place, and is taken over by the same question asked again.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openMirrorStore } from '../../src/books/open-store.js';
import { TASKS_PER_OWNER, TaskBound } from '../../src/mcp/tasks/task-bound.js';
import { type Started, TASK_TTL_MS, TaskRuns, type TaskWork } from '../../src/mcp/tasks/task-runs.js';
import type { MirrorStore } from '../../src/store/store.js';
import { manualTime, type TestTime } from '../support/test-time.js';

let store: MirrorStore;
let time: TestTime & { advance(ms: number): void };
beforeEach(async () => {
  store = await openMirrorStore({ location: { kind: 'memory' }, identity: 'https://svc.example|bound', warn: () => undefined });
  time = manualTime(Date.parse('2027-03-15T00:00:00Z'));
});
afterEach(() => store.close());

/** Work the test ends when it likes, counting how often it was begun (a begun work is a run of the tool). */
function heldWork() {
  const ends: ((text: string) => void)[] = [];
  let begun = 0;
  const work: TaskWork = (signal) =>
    new Promise((resolve, reject) => {
      begun++;
      ends.push((text) => resolve({ content: [{ type: 'text', text }] }));
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  const finish = (text: string): void => {
    for (const end of ends.splice(0)) end(text);
  };
  return { work, begun: () => begun, finish };
}

/** A server process on the store: its runs and its bound, on the test's clock. */
function process_() {
  const runs = new TaskRuns({ now: time.now, timers: time.timers });
  return { runs, bound: new TaskBound(runs) };
}

const ask = (report: string) => ({ arguments: { range: report }, views: false });

/** Calls made together, the clock moved on past their short wait: what each answered. */
async function together(calls: Promise<Started | null>[]): Promise<(Started | null)[]> {
  let settled = false;
  const all = Promise.all(calls).finally(() => (settled = true));
  for (let n = 0; n < 400 && !settled; n++) {
    time.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return all;
}

const idOf = (started: Started | null): string | null => (started && 'task' in started ? started.task.id : null);

/** The store's writes land a few turns later: looks again until `seen` (bounded). */
async function until(seen: () => Promise<boolean> | boolean): Promise<void> {
  for (let n = 0; n < 200; n++) {
    if (await seen()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('not seen');
}

it('the same question while its task works joins it: one run, one task, the same handle', async () => {
  const { bound } = process_();
  const held = heldWork();
  const [a, b] = await together([
    bound.admit(store.tasks, 'grant:a', 'report_sales', ask('last_year'), held.work),
    bound.admit(store.tasks, 'grant:a', 'report_sales', ask('last_year'), held.work),
  ]);
  expect(idOf(a)).not.toBeNull();
  expect(idOf(b)).toBe(idOf(a));
  // Asked again once it is a task: joined from here, and the tool ran once.
  expect(idOf(await bound.admit(store.tasks, 'grant:a', 'report_sales', ask('last_year'), held.work))).toBe(idOf(a));
  expect(held.begun()).toBe(1);
  // Another owner's same question is theirs: a task of its own.
  const [theirs] = await together([bound.admit(store.tasks, 'grant:b', 'report_sales', ask('last_year'), held.work)]);
  expect(idOf(theirs)).not.toBe(idOf(a));
  expect(held.begun()).toBe(2);
});

it('the same question answered within the short wait: both calls get the one answer', async () => {
  const { bound } = process_();
  const held = heldWork();
  const first = bound.admit(store.tasks, 'key:k', 'report_owed', ask('today'), held.work);
  const second = bound.admit(store.tasks, 'key:k', 'report_owed', ask('today'), held.work);
  await until(() => held.begun() === 1);
  held.finish('owed today');
  const answer = { result: { content: [{ type: 'text', text: 'owed today' }] } };
  expect(await first).toEqual(answer);
  expect(await second).toEqual(answer);
  // Answered: the next ask runs the tool again.
  void bound.admit(store.tasks, 'key:k', 'report_owed', ask('today'), held.work);
  await until(() => held.begun() === 2);
});

it(`past ${TASKS_PER_OWNER} working tasks an owner's call answers without a task; a place is free again once one ends`, async () => {
  expect(TASKS_PER_OWNER).toBe(3);
  const { bound } = process_();
  const held = heldWork();
  const ranges = ['q1', 'q2', 'q3', 'q4', 'q5'];
  const answered = await together(ranges.map((r) => bound.admit(store.tasks, 'grant:a', 'report_sales', ask(r), held.work)));
  expect(answered.slice(0, 3).every((s) => idOf(s) !== null)).toBe(true);
  expect(answered.slice(3)).toEqual([null, null]);
  expect(held.begun()).toBe(3);
  // Another owner is not held by this one's bound.
  const [theirs] = await together([bound.admit(store.tasks, 'grant:b', 'report_sales', ask('q1'), held.work)]);
  expect(idOf(theirs)).not.toBeNull();

  held.finish('done');
  await until(async () => (await store.tasks.working('grant:a', time.now())).length === 0);
  const [again] = await together([bound.admit(store.tasks, 'grant:a', 'report_sales', ask('q4'), held.work)]);
  expect(idOf(again)).not.toBeNull();
});

it("another process's working tasks hold the owner's places, and its task of the same question is joined", async () => {
  const one = process_();
  const other = process_();
  const held = heldWork();
  const made = await together(['q1', 'q2', 'q3'].map((r) => one.bound.admit(store.tasks, 'grant:a', 'report_sales', ask(r), held.work)));
  expect(made.every((s) => idOf(s) !== null)).toBe(true);
  expect(await other.bound.admit(store.tasks, 'grant:a', 'report_sales', ask('q4'), held.work)).toBeNull();
  expect(idOf(await other.bound.admit(store.tasks, 'grant:a', 'report_sales', ask('q2'), held.work))).toBe(idOf(made[1]!));
  expect(held.begun()).toBe(3);
});

it('a task whose holder stopped beating holds no place; the same question asked again takes it over', async () => {
  const { runs, bound } = process_();
  const held = heldWork();
  const now = time.now();
  // Made by a process on another machine that stopped a minute ago.
  await store.tasks.create({
    id: 'f0e1d2c3-0000-4000-8000-00000000dead',
    owner: 'grant:a',
    tool: 'report_sales',
    args: ask('q1'),
    status: 'working',
    message: null,
    result: null,
    createdMs: now - 60_000,
    updatedMs: now - 60_000,
    expiresMs: now + TASK_TTL_MS,
    holder: 'another-host/4242/c0ffee',
    beatMs: now - 60_000,
  });
  const free = await together(['q2', 'q3', 'q4'].map((r) => bound.admit(store.tasks, 'grant:a', 'report_sales', ask(r), held.work)));
  expect(free.every((s) => idOf(s) !== null)).toBe(true);
  const joined = await bound.admit(store.tasks, 'grant:a', 'report_sales', ask('q1'), held.work);
  expect(idOf(joined)).toBe('f0e1d2c3-0000-4000-8000-00000000dead');
  expect((await store.tasks.get('f0e1d2c3-0000-4000-8000-00000000dead', time.now()))?.holder).toBe(runs.holder);
  expect(held.begun()).toBe(4);
});
