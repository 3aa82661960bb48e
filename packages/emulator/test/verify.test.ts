import { createTestClock } from '@faceverify/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { postVerify } from './support/api.js';

const started: Emulator[] = [];

async function emulatorWith(options: Parameters<typeof startEmulator>[0] = {}) {
  const emulator = await startEmulator(options);
  started.push(emulator);
  return emulator;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

// A JWT of the shape identity providers issue for dashboard sessions.
const DASHBOARD_JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLWJ5dGVz';

describe('POST /v1/verify', () => {
  it('opens a pending session and answers 201 with the documented shape', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now, sessionTtlMs: 600_000 });
    const answer = await postVerify(emulator, {
      external_user_id: 'user-42',
      redirect_url: 'https://app.example/done',
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body).sort()).toEqual(
      ['expires_at', 'external_user_id', 'status', 'token', 'verify_url'].sort(),
    );
    const token = String(answer.body.token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(answer.body).toMatchObject({
      verify_url: `${emulator.url}/verify/${token}`,
      status: 'pending',
      external_user_id: 'user-42',
      expires_at: new Date(clock.now() + 600_000).toISOString(),
    });
  });

  it('issues a different token for every session', async () => {
    const emulator = await emulatorWith();
    const first = await postVerify(emulator, { external_user_id: 'same-user' });
    const second = await postVerify(emulator, { external_user_id: 'same-user' });
    expect(first.body.token).not.toBe(second.body.token);
  });

  it('generates a fv_test_ API key and a whsec_ signing secret by default', async () => {
    const emulator = await emulatorWith();
    expect(emulator.apiKey).toMatch(/^fv_test_[0-9a-f]{32}$/);
    expect(emulator.apiKeys).toEqual([emulator.apiKey]);
    expect(emulator.signingSecret).toMatch(/^whsec_[0-9a-f]{48}$/);
  });

  describe('authentication', () => {
    it('refuses a missing API key with 401 invalid_api_key', async () => {
      const emulator = await emulatorWith();
      const answer = await postVerify(emulator, { external_user_id: 'u' }, null);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ success: false, error: 'invalid_api_key' });
      expect(answer.body.message).toEqual(expect.any(String));
    });

    it('refuses an unknown API key with 401 invalid_api_key, without echoing it', async () => {
      const emulator = await emulatorWith();
      const guess = 'fv_test_0123456789abcdef0123456789abcdef';
      const answer = await postVerify(emulator, { external_user_id: 'u' }, `Bearer ${guess}`);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ success: false, error: 'invalid_api_key' });
      expect(answer.text).not.toContain(guess);
      expect([...answer.headers.values()].join(' ')).not.toContain(guess);
    });

    it('refuses a non-Bearer scheme', async () => {
      const emulator = await emulatorWith();
      const answer = await postVerify(
        emulator,
        { external_user_id: 'u' },
        `Basic ${emulator.apiKey}`,
      );
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_api_key');
    });

    it('accepts the scheme in any case', async () => {
      const emulator = await emulatorWith();
      const answer = await postVerify(
        emulator,
        { external_user_id: 'u' },
        `bearer ${emulator.apiKey}`,
      );
      expect(answer.status).toBe(201);
    });

    it('refuses a dashboard JWT with 401 dashboard_token_not_accepted and says why', async () => {
      const emulator = await emulatorWith();
      const answer = await postVerify(
        emulator,
        { external_user_id: 'u' },
        `Bearer ${DASHBOARD_JWT}`,
      );
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ success: false, error: 'dashboard_token_not_accepted' });
      expect(String(answer.body.message)).toMatch(/dashboard session/i);
      expect(String(answer.body.message)).toMatch(/not an API key/i);
      expect(answer.text).not.toContain(DASHBOARD_JWT);
    });

    it('accepts every configured key', async () => {
      const emulator = await emulatorWith({ apiKeys: ['fv_test_first', 'fv_test_second'] });
      for (const key of ['fv_test_first', 'fv_test_second']) {
        const answer = await postVerify(emulator, { external_user_id: 'u' }, `Bearer ${key}`);
        expect(answer.status).toBe(201);
      }
    });
  });

  describe('validation', () => {
    it.each([
      ['malformed JSON', '{"external_user_id":'],
      ['a JSON array', '[]'],
      ['no external_user_id', {}],
      ['an empty external_user_id', { external_user_id: '' }],
      ['a numeric external_user_id', { external_user_id: 42 }],
      ['an over-long external_user_id', { external_user_id: 'x'.repeat(257) }],
      ['a relative redirect_url', { external_user_id: 'u', redirect_url: '/done' }],
      [
        'a javascript: redirect_url',
        { external_user_id: 'u', redirect_url: 'javascript:alert(1)' },
      ],
      ['a non-string redirect_url', { external_user_id: 'u', redirect_url: 7 }],
    ])('refuses %s with 400 invalid_request', async (_case, body) => {
      const emulator = await emulatorWith();
      const answer = await postVerify(emulator, body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, error: 'invalid_request' });
      expect(answer.body.message).toEqual(expect.any(String));
    });

    it('refuses a body over 64 KiB with 413', async () => {
      const emulator = await emulatorWith();
      const answer = await postVerify(emulator, { external_user_id: 'u', pad: 'x'.repeat(70_000) });
      expect(answer.status).toBe(413);
      expect(answer.body.error).toBe('payload_too_large');
    });
  });

  describe('rate limit: 60 per minute per API key, sliding window', () => {
    it('sends X-RateLimit headers on normal answers', async () => {
      const emulator = await emulatorWith();
      const first = await postVerify(emulator, { external_user_id: 'u' });
      const second = await postVerify(emulator, { external_user_id: 'u' });
      expect(first.headers.get('x-ratelimit-limit')).toBe('60');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
      expect(second.headers.get('x-ratelimit-remaining')).toBe('58');
    });

    it('allows 60 requests, then answers 429 with the documented body and headers', async () => {
      const clock = createTestClock();
      const emulator = await emulatorWith({ now: clock.now });
      for (let index = 0; index < 60; index++) {
        const answer = await postVerify(emulator, { external_user_id: `u${index}` });
        expect(answer.status).toBe(201);
        await clock.advance(100);
      }
      // The first request was made 6 000 ms ago: it leaves the window in 54 000 ms.
      const refused = await postVerify(emulator, { external_user_id: 'one-too-many' });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        success: false,
        message: expect.stringMatching(/rate limit/i),
        retry_after_ms: 54_000,
      });
      expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('retry-after')).toBe('54');
      expect(emulator.stats().rateLimited.verify).toBe(1);
    });

    it('slides: room comes back one request at a time, not all at once', async () => {
      const clock = createTestClock();
      const emulator = await emulatorWith({
        now: clock.now,
        rateLimits: { verify: { limit: 3, windowMs: 1_000 } },
      });
      const verify = () => postVerify(emulator, { external_user_id: 'u' });
      expect((await verify()).status).toBe(201); // t = 0
      await clock.advance(600);
      expect((await verify()).status).toBe(201); // t = 600
      expect((await verify()).status).toBe(201); // t = 600
      expect((await verify()).status).toBe(429);
      await clock.advance(401); // t = 1001: only the request of t = 0 has left the window
      expect((await verify()).status).toBe(201);
      const refused = await verify();
      // A fixed window starting at t = 1000 would allow this one.
      expect(refused.status).toBe(429);
      expect(refused.body.retry_after_ms).toBe(599);
      await clock.advance(599); // t = 1600: both requests of t = 600 have left
      expect((await verify()).status).toBe(201);
      expect((await verify()).status).toBe(201);
      expect((await verify()).status).toBe(429);
    });

    it('counts each API key on its own', async () => {
      const clock = createTestClock();
      const emulator = await emulatorWith({
        now: clock.now,
        apiKeys: ['fv_test_alpha', 'fv_test_beta'],
        rateLimits: { verify: { limit: 2, windowMs: 60_000 } },
      });
      const as = (key: string) => postVerify(emulator, { external_user_id: 'u' }, `Bearer ${key}`);
      expect((await as('fv_test_alpha')).status).toBe(201);
      expect((await as('fv_test_alpha')).status).toBe(201);
      expect((await as('fv_test_alpha')).status).toBe(429);
      const beta = await as('fv_test_beta');
      expect(beta.status).toBe(201);
      expect(beta.headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await as('fv_test_beta')).status).toBe(201);
      expect((await as('fv_test_beta')).status).toBe(429);
    });

    it('does not count refused requests, nor unauthenticated ones', async () => {
      const clock = createTestClock();
      const emulator = await emulatorWith({
        now: clock.now,
        rateLimits: { verify: { limit: 1, windowMs: 1_000 } },
      });
      await postVerify(emulator, { external_user_id: 'u' }, 'Bearer fv_test_wrong');
      expect((await postVerify(emulator, { external_user_id: 'u' })).status).toBe(201);
      for (let index = 0; index < 5; index++) {
        expect((await postVerify(emulator, { external_user_id: 'u' })).status).toBe(429);
      }
      await clock.advance(1_000);
      expect((await postVerify(emulator, { external_user_id: 'u' })).status).toBe(201);
    });
  });
});
