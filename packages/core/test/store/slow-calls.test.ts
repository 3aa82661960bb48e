import { describe, expect, it } from 'vitest';
import { SlowCalls } from '../../src/store/sealed/slow-calls.js';
import { createTestClock } from '../../src/testing/index.js';

describe('SlowCalls (store_slow without a timer per call)', () => {
  it('reports each call at its own threshold while it waits, on one clock timer armed when needed', async () => {
    const clock = createTestClock();
    let armed = 0;
    const setTimeout = clock.setTimeout.bind(clock);
    clock.setTimeout = (callback, ms) => {
      armed += 1;
      return setTimeout(callback, ms);
    };
    const slow: string[] = [];
    const calls = new SlowCalls(clock, 5000, (method) => {
      slow.push(method);
      return undefined;
    });

    // A hundred calls answered at once arm one timer, and leave nothing to report.
    for (let index = 0; index < 100; index += 1) calls.end(calls.begin('remember'));
    expect(armed).toBe(1);
    const first = calls.begin('findByUser');
    await clock.advance(2000);
    const second = calls.begin('insert');
    expect(armed).toBe(1);
    await clock.advance(2999);
    expect(slow).toEqual([]);
    await clock.advance(1);
    expect(slow).toEqual(['findByUser']);
    // Armed again for the next call's threshold, 2 s later, not for each call.
    await clock.advance(1999);
    expect(slow).toEqual(['findByUser']);
    await clock.advance(1);
    expect(slow).toEqual(['findByUser', 'insert']);
    // Reported once each, however long they wait; none armed while nothing is left to report.
    await clock.advance(60_000);
    expect(slow).toEqual(['findByUser', 'insert']);
    calls.end(first);
    calls.end(second);
    expect(clock.pendingTimers).toBe(0);
    expect(armed).toBe(2);
  });

  it('watches a promise until it settles, either way, and hands it over as it ends', async () => {
    const clock = createTestClock();
    const slow: string[] = [];
    const calls = new SlowCalls(clock, 100, (method) => {
      slow.push(method);
      return undefined;
    });
    await expect(calls.watch('get', Promise.resolve(7))).resolves.toBe(7);
    const failure = new Error('store down');
    await expect(calls.watch('get', Promise.reject(failure))).rejects.toBe(failure);
    await clock.advance(200);
    expect(slow).toEqual([]);
  });
});

it('tells when a call reported slow ends, and only such a call', async () => {
  const clock = createTestClock();
  const ended: string[] = [];
  const calls = new SlowCalls(clock, 100, (method) => () => ended.push(method));
  let answer!: (value: number) => void;
  const slow = calls.watch('lease', new Promise<number>((resolve) => (answer = resolve)));
  await calls.watch('get', Promise.resolve(1));
  await clock.advance(100);
  expect(ended).toEqual([]);
  answer(2);
  await slow;
  expect(ended).toEqual(['lease']);
});
