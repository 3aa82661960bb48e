import { describe, expect, it } from 'vitest';
import { FixedDelayTimers } from '../../src/base/clock/fixed-delay-timers.js';
import { createTestClock } from '../../src/testing/index.js';

describe('FixedDelayTimers (acknowledgement deadlines and lease renewals)', () => {
  it('runs each callback at its own time, on one clock timer', async () => {
    const clock = createTestClock();
    const start = clock.now();
    const timers = new FixedDelayTimers(clock, 1000);
    const fired: Array<[string, number]> = [];
    timers.start(() => fired.push(['a', clock.now() - start]));
    await clock.advance(300);
    timers.start(() => fired.push(['b', clock.now() - start]));
    await clock.advance(200);
    timers.start(() => fired.push(['c', clock.now() - start]));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(499);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toEqual([['a', 1000]]);
    await clock.advance(1000);
    expect(fired).toEqual([
      ['a', 1000],
      ['b', 1300],
      ['c', 1500],
    ]);
  });

  it('never runs a cancelled callback, and keeps the later ones on time', async () => {
    const clock = createTestClock();
    const start = clock.now();
    const timers = new FixedDelayTimers(clock, 1000);
    const fired: number[] = [];
    const first = timers.start(() => fired.push(-1));
    await clock.advance(100);
    timers.start(() => fired.push(clock.now() - start));
    timers.cancel(first);
    await clock.advance(5000);
    expect(fired).toEqual([1100]);
  });

  it('a callback may start the next timer (a renewal), which runs one delay later', async () => {
    const clock = createTestClock();
    const start = clock.now();
    const timers = new FixedDelayTimers(clock, 400);
    const fired: number[] = [];
    const renew = () => {
      fired.push(clock.now() - start);
      if (fired.length < 3) timers.start(renew);
    };
    timers.start(renew);
    await clock.advance(2000);
    expect(fired).toEqual([400, 800, 1200]);
  });

  it('holds only live timers: a cancelled one is dropped at once, even behind a live one', async () => {
    const clock = createTestClock();
    const timers = new FixedDelayTimers(clock, 1000);
    const fired: string[] = [];
    // A slow handler's renewal stays live while 10,000 quick requests start and cancel theirs.
    timers.start(() => fired.push('slow'));
    for (let i = 0; i < 10_000; i++) timers.cancel(timers.start(() => fired.push('quick')));
    expect(timers.held).toBe(1);
    await clock.advance(1000);
    expect(fired).toEqual(['slow']);
    expect(timers.held).toBe(0);
    // With nothing live, each cancel empties the list.
    timers.cancel(timers.start(() => fired.push('late')));
    expect(timers.held).toBe(0);
  });
});
