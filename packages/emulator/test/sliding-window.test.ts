import { createTestClock } from '@faceverify/core/testing';
import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../src/rate-limit/sliding-window.js';

describe('SlidingWindowLimiter', () => {
  it('allows `limit` requests per window and reports what remains', async () => {
    const clock = createTestClock();
    const limiter = new SlidingWindowLimiter(2, 1_000, clock.now);
    expect(limiter.take('a')).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterMs: 0 });
    expect(limiter.take('a')).toEqual({ allowed: true, limit: 2, remaining: 0, retryAfterMs: 0 });
    expect(limiter.take('a')).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      retryAfterMs: 1_000,
    });
  });

  it('lets a request in exactly when the oldest one leaves the window', async () => {
    const clock = createTestClock();
    const limiter = new SlidingWindowLimiter(1, 1_000, clock.now);
    limiter.take('a');
    await clock.advance(999);
    expect(limiter.take('a')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    await clock.advance(1);
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('keeps keys apart', async () => {
    const clock = createTestClock();
    const limiter = new SlidingWindowLimiter(1, 1_000, clock.now);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('forgets idle keys, so memory does not grow with every caller ever seen', async () => {
    const clock = createTestClock();
    const limiter = new SlidingWindowLimiter(5, 1_000, clock.now);
    for (let index = 0; index < 100; index++) limiter.take(`caller-${index}`);
    await clock.advance(2_000);
    limiter.take('latest');
    const hits = (limiter as unknown as { hits: Map<string, number[]> }).hits;
    expect([...hits.keys()]).toEqual(['latest']);
  });
});
