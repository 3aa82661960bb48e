import { createTestClock } from '@faceverify/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, EmulatorRequestError, startEmulator } from '../src/index.js';
import { getSession, openSession, postComplete, postCompleteFrom } from './support/api.js';

const started: Emulator[] = [];

async function emulatorWith(options: Parameters<typeof startEmulator>[0] = {}) {
  const emulator = await startEmulator(options);
  started.push(emulator);
  return emulator;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

describe('POST /v1/sessions/:token/complete', () => {
  it('completes with the token alone and answers the redirect address with token and status', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator, 'u', 'https://app.example/back?from=verify');
    const answer = await postComplete(emulator, token, { outcome: 'verified' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'verified', redirect_url: expect.any(String) });
    const redirect = new URL(String(answer.body.redirect_url));
    expect(`${redirect.origin}${redirect.pathname}`).toBe('https://app.example/back');
    expect(redirect.searchParams.get('from')).toBe('verify');
    expect(redirect.searchParams.get('token')).toBe(token);
    expect(redirect.searchParams.get('status')).toBe('verified');
  });

  it('answers redirect_url null when the session has no redirect address', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    const answer = await postComplete(emulator, token, { outcome: 'high_risk' });
    expect(answer.body).toEqual({ status: 'failed', redirect_url: null });
  });

  it('is single-use: a second completion answers 409 and changes nothing', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    expect((await postComplete(emulator, token, { outcome: 'liveness_failed' })).status).toBe(200);
    const again = await postComplete(emulator, token, { outcome: 'verified' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: 'session_already_completed' });
    expect((await getSession(emulator, token)).body.status).toBe('failed');
  });

  it('lets exactly one of several concurrent completions win', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => postComplete(emulator, token, { outcome: 'verified' })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409]);
  });

  it('answers 404 session_not_found for an unknown token', async () => {
    const emulator = await emulatorWith();
    const answer = await postComplete(emulator, 'not-a-token', { outcome: 'verified' });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, error: 'session_not_found' });
  });

  it('answers 410 session_expired once the token lifetime has passed', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ sessionTtlMs: 30, now: clock.now });
    const { token } = await openSession(emulator);
    await clock.advance(30);
    const answer = await postComplete(emulator, token, { outcome: 'verified' });
    expect(answer.status).toBe(410);
    expect(answer.body).toMatchObject({ success: false, error: 'session_expired' });
    expect((await getSession(emulator, token)).body.status).toBe('expired');
  });

  it.each([
    ['an unknown outcome', { outcome: 'approved' }],
    ['no outcome', {}],
    ['malformed JSON', '{"outcome"'],
  ])('refuses %s with 400 invalid_request', async (_case, body) => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    const answer = await postComplete(emulator, token, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: 'invalid_request' });
    expect((await getSession(emulator, token)).body.status).toBe('pending');
  });

  it('completeSession makes the same call and reports refusals as EmulatorRequestError', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator, 'u', 'http://127.0.0.1:9/back');
    const first = await emulator.completeSession(token, 'duplicate');
    expect(first).toEqual({
      status: 'failed',
      redirect_url: `http://127.0.0.1:9/back?token=${token}&status=failed`,
    });
    const error = await emulator
      .completeSession(token, 'verified')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmulatorRequestError);
    expect(error).toMatchObject({ status: 409, body: { error: 'session_already_completed' } });
  });

  describe('rate limit: 20 per minute per client IP, sliding window', () => {
    it('refuses the 21st request from one IP with the 429 body, whatever the token', async () => {
      const clock = createTestClock();
      const emulator = await emulatorWith({ now: clock.now });
      for (let index = 0; index < 20; index++) {
        const answer = await postComplete(emulator, `unknown-${index}`, { outcome: 'verified' });
        expect(answer.status).toBe(404);
        expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(19 - index));
        await clock.advance(1_000);
      }
      const { token } = await openSession(emulator);
      const refused = await postComplete(emulator, token, { outcome: 'verified' });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        success: false,
        message: expect.stringMatching(/rate limit/i),
        retry_after_ms: 40_000,
      });
      expect(refused.headers.get('x-ratelimit-limit')).toBe('20');
      expect((await getSession(emulator, token)).body.status).toBe('pending');
      expect(emulator.stats().rateLimited.complete).toBe(1);
      await clock.advance(40_000);
      expect((await postComplete(emulator, token, { outcome: 'verified' })).status).toBe(200);
    });

    it('counts each client IP on its own', async () => {
      const emulator = await emulatorWith({
        rateLimits: { complete: { limit: 2, windowMs: 60_000 } },
      });
      const { token } = await openSession(emulator);
      const body = { outcome: 'nonsense' };
      expect((await postCompleteFrom('127.0.0.1', emulator, token, body)).status).toBe(400);
      expect((await postCompleteFrom('127.0.0.1', emulator, token, body)).status).toBe(400);
      expect((await postCompleteFrom('127.0.0.1', emulator, token, body)).status).toBe(429);
      const other = await postCompleteFrom('127.0.0.2', emulator, token, { outcome: 'verified' });
      expect(other).toEqual({ status: 200, body: { status: 'verified', redirect_url: null } });
    });
  });

  it('keeps only the hash of a token: the plain token is nowhere in the state', async () => {
    const emulator = await emulatorWith({
      callbackUrl: 'http://127.0.0.1:9/webhooks',
      rateLimits: { complete: { limit: 50, windowMs: 60_000 } },
    });
    const pending = await openSession(emulator, 'user-pending', 'https://app.example/back');
    const completed = await openSession(emulator, 'user-completed', 'https://app.example/back');
    await emulator.completeSession(completed.token, 'verified');
    await postComplete(emulator, pending.token, { outcome: 'not-an-outcome' });
    const dump = JSON.stringify(emulator.dumpState());
    const { createHash } = await import('node:crypto');
    for (const { token } of [pending, completed]) {
      expect(dump).not.toContain(token);
      // The dump is the real state: the token's SHA-256 is there.
      expect(dump).toContain(createHash('sha256').update(token).digest('hex'));
    }
    expect(dump).toContain('user-pending');
    expect(dump).toContain('user-completed');
  });
});
