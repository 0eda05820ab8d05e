// The pacer: budget from headers, FIFO order, one probe when spent, holds after 429, bounded waits. Its waits
// run on a clock the test moves (support/test-time.ts).
import { describe, expect, it } from 'vitest';
import { RateLimited } from '../../src/api/errors.js';
import { Pacer, type Slot, UNSTATED_LIMIT_CONCURRENCY } from '../../src/api/pacing.js';
import { manualTime } from '../support/test-time.js';

const ok = (remaining: number, limit = 10) => ({
  status: 200,
  headers: { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining) },
});
const tick = () => new Promise((r) => setTimeout(r, 0));

function pacer(options: Partial<ConstructorParameters<typeof Pacer>[0]> = {}): Pacer {
  return new Pacer({ maxConcurrent: 4, maxWaitMs: 1000, now: Date.now, ...options });
}

describe('Pacer', () => {
  it('starts up to maxConcurrent before the service has said anything', async () => {
    const p = pacer();
    const started: Slot[] = [];
    for (let i = 0; i < 6; i++)
      void p.acquire().then(
        (s) => started.push(s),
        () => undefined,
      );
    await tick();
    expect(started).toHaveLength(4);
    expect(p.state()).toMatchObject({ limit: null, remaining: null, inFlight: 4, queued: 2 });
    started[0]?.release(ok(9));
    await tick();
    expect(started).toHaveLength(5);
    p.close();
  });

  it('with no cap set, follows the key: one call until the service states its limit, then as many as it allows', async () => {
    const p = pacer({ maxConcurrent: null });
    const started: Slot[] = [];
    for (let i = 0; i < 60; i++)
      void p.acquire().then(
        (s) => started.push(s),
        () => undefined,
      );
    await tick();
    expect(started).toHaveLength(1);
    started[0]?.release(ok(40, 40));
    await tick();
    // 40 calls a window and 40 left: 40 in flight, well past any fixed cap.
    expect(p.state()).toMatchObject({ limit: 40, inFlight: 40, queued: 60 - 41 });
    p.close();
  });

  it('with no cap set and a service that states no limit, goes on with a few calls at a time', async () => {
    const p = pacer({ maxConcurrent: null });
    const started: Slot[] = [];
    for (let i = 0; i < 30; i++)
      void p.acquire().then(
        (s) => started.push(s),
        () => undefined,
      );
    await tick();
    started[0]?.release({ status: 200, headers: {} });
    await tick();
    expect(p.state()).toMatchObject({ limit: null, inFlight: UNSTATED_LIMIT_CONCURRENCY });
    p.close();
  });

  it('learns the budget from the headers and lets no more calls start than remain', async () => {
    const p = pacer({ maxConcurrent: 100 });
    const first = await p.acquire();
    first.release(ok(3, 50));
    expect(p.state()).toMatchObject({ limit: 50, remaining: 3 });
    const started: Slot[] = [];
    for (let i = 0; i < 10; i++)
      void p.acquire().then(
        (s) => started.push(s),
        () => undefined,
      );
    await tick();
    expect(started).toHaveLength(3);
    p.close();
  });

  it('serves waiting calls in FIFO order, retries at the front', async () => {
    const p = pacer({ maxConcurrent: 1 });
    const order: string[] = [];
    const held = await p.acquire();
    const a = p.acquire().then((s) => {
      order.push('a');
      return s;
    });
    const b = p.acquire().then((s) => {
      order.push('b');
      return s;
    });
    const retry = p.acquire({ front: true }).then((s) => {
      order.push('retry');
      return s;
    });
    held.release();
    (await retry).release();
    (await a).release();
    (await b).release();
    expect(order).toEqual(['retry', 'a', 'b']);
  });

  it('with the budget spent, lets one probe through at a time', async () => {
    const p = pacer({ maxConcurrent: 10 });
    (await p.acquire()).release(ok(0));
    const started: Slot[] = [];
    for (let i = 0; i < 3; i++)
      void p.acquire().then(
        (s) => started.push(s),
        () => undefined,
      );
    await tick();
    expect(started).toHaveLength(1);
    started[0]?.release(ok(9));
    await tick();
    expect(started).toHaveLength(3);
    p.close();
  });

  it('ignores a stale, higher figure that calls in flight explain', async () => {
    const p = pacer({ maxConcurrent: 10 });
    (await p.acquire()).release(ok(5));
    const s1 = await p.acquire();
    const s2 = await p.acquire();
    s1.release(ok(3)); // the later call answered first
    s2.release(ok(4)); // a stale figure: 4 <= 3 + 1 in flight
    expect(p.state().remaining).toBe(3);
    p.close();
  });

  it('holds every call for Retry-After after a 429', async () => {
    const time = manualTime();
    const p = pacer({ maxWaitMs: 3000, now: time.now, timers: time.timers });
    const s = await p.acquire();
    const t0 = time.now();
    s.release({ status: 429, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' } });
    expect(p.state().blockedUntil).toBeGreaterThan(t0);
    let started = false;
    const next = p.acquire().then((slot) => {
      started = true;
      return slot;
    });
    time.advance(999);
    await tick();
    expect(started).toBe(false);
    time.advance(1);
    await next;
    expect(time.now() - t0).toBeGreaterThanOrEqual(950);
    p.close();
  });

  it('refuses at once a call that would wait past its bound, and says when to retry', async () => {
    const p = pacer({ maxWaitMs: 500 });
    (await p.acquire()).release({ status: 429, headers: { 'retry-after': '7' } });
    const err = await p.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfter).toBe(7);
    expect((err as Error).message).toMatch(/Retry after 7 seconds/);
  });

  it('refuses a queued call when its bound passes', async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 1, maxWaitMs: 50, now: time.now, timers: time.timers });
    await p.acquire();
    const queued = p.acquire();
    time.advance(50);
    await expect(queued).rejects.toBeInstanceOf(RateLimited);
    p.close();
  });

  it('drops a waiting call when its signal aborts', async () => {
    const p = pacer({ maxConcurrent: 1 });
    const held = await p.acquire();
    const controller = new AbortController();
    const waiting = p.acquire({ signal: controller.signal });
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(p.state().queued).toBe(0);
    held.release();
    p.close();
  });
});

describe('Pacer: the background lane', () => {
  it('starts a background call only when no other call waits, and one at a time', async () => {
    const p = pacer({ maxConcurrent: 1 });
    const order: string[] = [];
    const held = await p.acquire();
    const bgA = p.acquire({ background: true }).then((s) => {
      order.push('bgA');
      return s;
    });
    const bgB = p.acquire({ background: true }).then((s) => {
      order.push('bgB');
      return s;
    });
    const tool = p.acquire().then((s) => {
      order.push('tool');
      return s;
    });
    held.release(ok(50, 60));
    (await tool).release(ok(49, 60));
    const a = await bgA;
    expect(p.state().background).toEqual({ queued: 1, inFlight: 1 });
    // A tool call arriving now waits behind this one background call only.
    const tool2 = p.acquire({}).then((s) => {
      order.push('tool2');
      return s;
    });
    await tick();
    a.release(ok(48, 60));
    (await tool2).release(ok(47, 60));
    (await bgB).release(ok(46, 60));
    expect(order).toEqual(['tool', 'bgA', 'tool2', 'bgB']);
    expect(p.state().foregroundStarted).toBe(3);
  });

  it('leaves the last fifth of the window to other calls, and goes again once the window has turned', async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 4, windowMs: 60_000, now: time.now, timers: time.timers });
    (await p.acquire()).release(ok(26, 120));
    const bg = await p.acquire({ background: true });
    bg.release(ok(24, 120));
    let started = false;
    void p.acquire({ background: true }).then((s) => {
      started = true;
      s.release(ok(119, 120));
    });
    time.advance(1100);
    await tick();
    expect(started).toBe(false);
    // A tool call still goes: the reserve is theirs.
    (await p.acquire()).release(ok(23, 120));
    time.advance(60_000 + 1100);
    await tick();
    expect(started).toBe(true);
    p.close();
  });
});

/** Calls of `lane` started one after another, each answered with the window's next figure. */
async function spend(p: Pacer, lane: 'person' | 'task' | 'background', answers: number[], limit: number): Promise<void> {
  for (const remaining of answers) (await p.acquire({ lane })).release(ok(remaining, limit));
}

describe('Pacer: one budget, three lanes', () => {
  it("serves a person's call before a task's, and a task's before the background's", async () => {
    const p = pacer({ maxConcurrent: 1 });
    const order: string[] = [];
    const held = await p.acquire();
    const go = (name: string, lane: 'person' | 'task' | 'background') =>
      p.acquire({ lane }).then((s) => {
        order.push(name);
        s.release(ok(50, 60));
      });
    const all = [go('bg', 'background'), go('task1', 'task'), go('task2', 'task'), go('person', 'person')];
    held.release(ok(55, 60));
    await Promise.all(all);
    expect(order).toEqual(['person', 'task1', 'task2', 'bg']);
  });

  it('knows the reset from the call that opened the window: a task waits for it without a 429, and spends the last tenth near it', async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 4, windowMs: 10_000, now: time.now, timers: time.timers });
    await spend(p, 'task', [9, 8], 10);
    expect(p.state().resetAt).toBeGreaterThan(time.now() + 9_000);
    // 8 left; a task leaves one (a tenth of 10) to the person while the window's end is far.
    await spend(p, 'task', [7, 6, 5, 4, 3, 2, 1], 10);
    const waits: number[] = [];
    let started = false;
    void p.acquire({ lane: 'task', maxWaitMs: 60_000, onWait: (until) => waits.push(until) }).then((s) => {
      started = true;
      s.release(ok(0, 10));
    });
    await tick();
    expect(started).toBe(false);
    expect(waits).toEqual([p.state().resetAt]);
    // A person's call takes the tenth the task left.
    (await p.acquire()).release(ok(1, 10));
    time.advance(8_000);
    await tick();
    expect(started).toBe(false);
    // In the window's last tenth the task may spend what the person has not.
    time.advance(1_100);
    await tick();
    expect(started).toBe(true);
    // Spent: nothing goes (no probe, the reset is known) until the window has surely turned; then one call first.
    let next = 0;
    const more = [0, 1, 2].map(() =>
      p.acquire({ lane: 'task', maxWaitMs: 60_000 }).then((s) => {
        next++;
        return s;
      }),
    );
    time.advance(500);
    await tick();
    expect(next).toBe(0);
    time.advance(1_000);
    await tick();
    expect(next).toBe(1);
    (await more[0])?.release(ok(9, 10));
    await tick();
    expect(next).toBe(3);
    p.close();
  });

  it('without the window known, a task spends it and one probe learns the window from its 429', async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 4, now: time.now, timers: time.timers });
    await spend(p, 'task', [4, 3, 2, 1, 0], 5);
    const probe = await p.acquire({ lane: 'task' });
    time.advance(1_200);
    probe.release({ status: 429, headers: { 'retry-after': '4', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' } });
    // Opened at 0, ends by 5.2 s (Retry-After is whole seconds): a window of 5 s, not the minute assumed.
    expect(p.state().windowMs).toBe(5_000);
    time.advance(4_100);
    await spend(p, 'task', [4], 5);
    expect(p.state().resetAt).toBe(time.now() + 5_050);
    p.close();
  });

  it('learns the window from two openings, never shorter than it is however slow the first answer', async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 4, now: time.now, timers: time.timers });
    const opener = await p.acquire({ lane: 'task' });
    time.advance(300); // the window opened when the service counted it, somewhere in these 300 ms
    opener.release(ok(9, 10));
    await spend(p, 'task', [8, 7], 10);
    time.advance(1_800);
    const next = await p.acquire({ lane: 'task' });
    time.advance(10);
    next.release(ok(9, 10));
    expect(p.state().windowMs).toBe(2_110);
    p.close();
  });

  it("refuses a person's call past its bound and says whose calls spent the window", async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 4, maxWaitMs: 2_000, windowMs: 10_000, now: time.now, timers: time.timers });
    await spend(p, 'person', [9, 8, 7], 10);
    await spend(p, 'background', [6], 10);
    await spend(p, 'task', [5, 4, 3, 2, 1], 10);
    await spend(p, 'person', [0], 10);
    const refused = p.acquire();
    time.advance(2_000);
    const err = (await refused.catch((e: unknown) => e)) as RateLimited;
    expect(err).toBeInstanceOf(RateLimited);
    expect(err.message).toContain("This window's calls here: 4 calls you asked for, 5 for tasks, 1 the server's own reading of the books.");
    expect(err.retryAfter).toBe(9);
    p.close();
  });

  it('estimates a task from what is left of the window, then whole windows', async () => {
    const time = manualTime();
    const p = pacer({ maxConcurrent: 4, windowMs: 60_000, now: time.now, timers: time.timers });
    await spend(p, 'task', [119], 120);
    time.advance(20_000);
    await spend(p, 'task', [100], 120);
    // 100 left now; 340 calls: 100 in this window, 120 in the next, 120 in the one after.
    const ms = p.estimateMs(340) as number;
    expect(ms).toBeGreaterThanOrEqual(40_000 + 60_000);
    expect(ms).toBeLessThan(40_000 + 60_000 + 5_000);
    expect(p.estimateMs(10)).toBeLessThan(1_000);
    p.close();
  });
});
