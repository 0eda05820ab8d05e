// The start of background work: a quiet moment after the last message, a longer silence when none came,
// or at the latest mark; once only, never after cancel. Timers are a hand-driven clock.
import { describe, expect, it } from 'vitest';
import { whenQuiet } from '../../src/cli/when-quiet.js';
import type { Timers } from '../../src/core/timers.js';

function manualClock() {
  let now = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const timers: Timers = {
    set: (fn, ms) => {
      const handle = next++;
      pending.set(handle, { at: now + ms, fn });
      return handle;
    },
    clear: (handle) => void pending.delete(handle as number),
  };
  const advance = (ms: number): void => {
    const until = now + ms;
    for (;;) {
      const due = [...pending].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = until;
  };
  return { timers, advance, pending: () => pending.size };
}

describe('whenQuiet', () => {
  it('runs after the silence when no message passes at all', () => {
    const clock = manualClock();
    let runs = 0;
    whenQuiet(() => runs++, { quietMs: 200, silentMs: 1000, latestMs: 3000, timers: clock.timers });
    clock.advance(999);
    expect(runs).toBe(0);
    clock.advance(1);
    expect(runs).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it('waits while messages pass, counting the quiet moment from the last', () => {
    const clock = manualClock();
    let runs = 0;
    const quiet = whenQuiet(() => runs++, { quietMs: 200, silentMs: 1000, latestMs: 3000, timers: clock.timers });
    for (let i = 0; i < 5; i++) {
      clock.advance(150);
      quiet.traffic();
    }
    expect(runs).toBe(0);
    clock.advance(199);
    expect(runs).toBe(0);
    clock.advance(1);
    expect(runs).toBe(1);
    quiet.traffic();
    clock.advance(1000);
    expect(runs).toBe(1);
  });

  it('runs at the latest mark when messages never pause', () => {
    const clock = manualClock();
    let runs = 0;
    const quiet = whenQuiet(() => runs++, { quietMs: 200, silentMs: 500, latestMs: 1000, timers: clock.timers });
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      quiet.traffic();
    }
    expect(runs).toBe(0);
    clock.advance(100);
    expect(runs).toBe(1);
    clock.advance(1000);
    expect(runs).toBe(1);
  });

  it('never runs once cancelled', () => {
    const clock = manualClock();
    let runs = 0;
    const quiet = whenQuiet(() => runs++, { quietMs: 200, silentMs: 500, latestMs: 1000, timers: clock.timers });
    clock.advance(100);
    quiet.cancel();
    quiet.traffic();
    clock.advance(5000);
    expect(runs).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});
