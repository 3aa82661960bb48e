import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/base/errors.js';
import { createClient } from '../../src/client/index.js';
import { createTestClock, type TestClock } from '../../src/testing/index.js';
import { drive, until } from '../support-clock.js';
import {
  createdReply,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from './scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function tooManyRequests(retryAfterMs?: number, headers: Record<string, string> = {}): Reply {
  return {
    status: 429,
    json: {
      success: false,
      message: 'Rate limit exceeded.',
      ...(retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs }),
    },
    headers,
  };
}

const pending = { status: 200, json: { token: 'tok_1', status: 'pending' } } satisfies Reply;

/**
 * Runs `call` on a test clock, checks that no request is resent while the wait the 429 asked
 * for (`waitMs`) has not passed, then moves the clock on until the call settles. Resolves to
 * its outcome (a value or the error) and the clock time it took.
 */
async function onTestClock<T>(
  scripted: ScriptedServer,
  waitMs: number,
  call: (clock: TestClock) => Promise<T>,
): Promise<{ outcome: T | unknown; elapsedMs: number }> {
  const clock = createTestClock();
  const started = clock.now();
  const calling = call(clock).catch((error: unknown) => error);
  await until(() => scripted.requests.length === 1);
  await clock.advance(waitMs);
  expect(scripted.requests, 'resent before retry_after_ms').toHaveLength(1);
  const outcome = await drive(clock, calling, 10);
  return { outcome, elapsedMs: clock.now() - started };
}

describe('429 handling', () => {
  it('waits retry_after_ms before resending createSession, then succeeds', async () => {
    server = await startScriptedServer((_request, index) =>
      index < 2 ? tooManyRequests(150) : createdReply('tok_after_429'),
    );
    const scripted = server;
    const { outcome, elapsedMs } = await onTestClock(scripted, 150, (clock) =>
      createClient({ apiKey: 'fv_test_429_create', baseUrl: scripted.url, clock }).createSession({
        externalUserId: 'user-1',
      }),
    );
    expect((outcome as { token: string }).token).toBe('tok_after_429');
    expect(server.requests).toHaveLength(3);
    expect(elapsedMs).toBeGreaterThanOrEqual(2 * 150);
  });

  it('waits retry_after_ms before resending getSession, then succeeds', async () => {
    server = await startScriptedServer((_request, index) =>
      index === 0 ? tooManyRequests(200) : pending,
    );
    const scripted = server;
    const { outcome, elapsedMs } = await onTestClock(scripted, 200, (clock) =>
      createClient({ apiKey: 'fv_test_429_get', baseUrl: scripted.url, clock }).getSession('tok_1'),
    );
    expect((outcome as { status: string }).status).toBe('pending');
    expect(server.requests).toHaveLength(2);
    expect(elapsedMs).toBeGreaterThanOrEqual(200);
  });

  it('throws the RateLimitError after the last retry, with its wait and limits', async () => {
    server = await startScriptedServer(() =>
      tooManyRequests(60, { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0' }),
    );
    const scripted = server;
    const { outcome, elapsedMs } = await onTestClock(scripted, 60, (clock) =>
      createClient({
        apiKey: 'fv_test_429_exhausted',
        baseUrl: scripted.url,
        maxRetries: 2,
        clock,
      }).createSession({ externalUserId: 'user-1' }),
    );
    const error = outcome as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.code).toBe('rate_limited');
    expect(error.serviceStatus).toBe(429);
    expect(error.retryAfterMs).toBe(60);
    expect(error.rateLimit).toEqual({ limit: 60, remaining: 0 });
    expect(error.message).toBe('POST /v1/verify was rate limited (429): Rate limit exceeded.');
    expect(server.requests).toHaveLength(3);
    expect(elapsedMs).toBeGreaterThanOrEqual(2 * 60);
  });

  it('falls back to the Retry-After header, in seconds', async () => {
    server = await startScriptedServer(() => tooManyRequests(undefined, { 'Retry-After': '2' }));
    const client = createClient({
      apiKey: 'fv_test_retry_after',
      baseUrl: server.url,
      maxRetries: 0,
    });
    const error = await client.getSession('tok_1').catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(2_000);
    expect(error.rateLimit).toEqual({});
  });

  it('falls back to the Retry-After header as an HTTP date', async () => {
    const at = new Date(Date.now() + 5_000).toUTCString();
    server = await startScriptedServer(() => tooManyRequests(undefined, { 'Retry-After': at }));
    const client = createClient({
      apiKey: 'fv_test_retry_date',
      baseUrl: server.url,
      maxRetries: 0,
    });
    const error = await client.getSession('tok_1').catch((e) => e);
    expect(error.retryAfterMs).toBeGreaterThan(3_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(5_000);
  });

  it('waits one second when the 429 says nothing about when to retry', async () => {
    server = await startScriptedServer(() => ({ status: 429, text: '' }));
    const client = createClient({
      apiKey: 'fv_test_retry_default',
      baseUrl: server.url,
      maxRetries: 0,
    });
    const error = await client.getSession('tok_1').catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(1_000);
  });

  it('throws at once when asked to wait longer than the service window', async () => {
    server = await startScriptedServer(() => tooManyRequests(3_600_000));
    const client = createClient({ apiKey: 'fv_test_retry_too_long', baseUrl: server.url });
    const error = await client.getSession('tok_1').catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(server.requests).toHaveLength(1);
  });

  it('stops waiting at once when the caller aborts', async () => {
    const clock = createTestClock();
    server = await startScriptedServer(() => tooManyRequests(5_000));
    let retriesScheduled = 0;
    const client = createClient({
      apiKey: 'fv_test_429_abort',
      baseUrl: server.url,
      clock,
      logger: {
        debug: (message) => {
          if (message === 'faceverify request retried') retriesScheduled += 1;
        },
      },
    });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const started = clock.now();
    const both = Promise.all([
      client
        .createSession({ externalUserId: 'user-1' }, { signal: controller.signal })
        .catch((e) => e),
      client.getSession('tok_1', { signal: controller.signal }).catch((e) => e),
    ]);
    // Both are waiting out their 429 now.
    await until(() => retriesScheduled === 2);
    controller.abort(reason);
    const [createError, getError] = await both;
    expect(createError).toBe(reason);
    expect(getError).toBe(reason);
    // Nothing waited for the 5 s the service asked for: no time passed on the clock.
    expect(clock.now()).toBe(started);
    expect(server.requests).toHaveLength(2);
  });
});
