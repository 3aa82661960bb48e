import { createTestClock } from '@faceverify/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { getSession, type Json, openSession } from './support/api.js';

const started: Emulator[] = [];

async function emulatorWith(options: Parameters<typeof startEmulator>[0] = {}) {
  const emulator = await startEmulator(options);
  started.push(emulator);
  return emulator;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

describe('GET /v1/sessions/:token', () => {
  it('reports a pending session with the documented shape', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now });
    const { token } = await openSession(emulator, 'user-7');
    const answer = await getSession(emulator, token);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      token,
      status: 'pending',
      external_user_id: 'user-7',
      created_at: new Date(clock.now()).toISOString(),
      completed_at: null,
      result: null,
    });
  });

  it('reports the result once completed, and keeps doing so', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now });
    const { token } = await openSession(emulator, 'user-8');
    await clock.advance(5_000);
    await emulator.completeSession(token, 'verified');
    for (let poll = 0; poll < 3; poll++) {
      await clock.advance(60_000);
      const answer = await getSession(emulator, token);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        token,
        status: 'verified',
        external_user_id: 'user-8',
        completed_at: new Date(Date.UTC(2030, 0, 1) + 5_000).toISOString(),
      });
      const result = answer.body.result as Json;
      expect(Object.keys(result).sort()).toEqual(
        [
          'confidence',
          'duplicate',
          'frontImageUrl',
          'livenessPassed',
          'reason',
          'risk',
          'status',
        ].sort(),
      );
      expect(result).toMatchObject({
        status: 'verified',
        livenessPassed: true,
        duplicate: false,
        risk: 'low',
        reason: null,
      });
      expect(result.frontImageUrl).toEqual(expect.stringContaining(`${emulator.url}/files/front/`));
    }
  });

  it.each([
    [
      'liveness_failed',
      { livenessPassed: false, duplicate: false, risk: 'medium', reason: 'liveness_check_failed' },
    ],
    [
      'duplicate',
      { livenessPassed: true, duplicate: true, risk: 'medium', reason: 'duplicate_face' },
    ],
    ['high_risk', { livenessPassed: true, duplicate: false, risk: 'high', reason: 'high_risk' }],
  ] as const)('reports the %s outcome as failed with its details', async (outcome, details) => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, outcome);
    const answer = await getSession(emulator, token);
    expect(answer.body.status).toBe('failed');
    expect(answer.body.result).toMatchObject({ status: 'failed', ...details });
    const confidence = (answer.body.result as Json).confidence;
    expect(confidence).toBeGreaterThanOrEqual(0);
    expect(confidence).toBeLessThanOrEqual(1);
  });

  it('reports an expired never-completed session as expired', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ sessionTtlMs: 40, now: clock.now });
    const { token } = await openSession(emulator);
    await clock.advance(40);
    const answer = await getSession(emulator, token);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'expired', completed_at: null, result: null });
  });

  it('turns a session expired exactly when its token lifetime ends', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now, sessionTtlMs: 1_000 });
    const { token } = await openSession(emulator);
    await clock.advance(999);
    expect((await getSession(emulator, token)).body.status).toBe('pending');
    await clock.advance(1);
    expect((await getSession(emulator, token)).body.status).toBe('expired');
    expect(emulator.stats().sessions).toMatchObject({ pending: 0, expired: 1 });
  });

  it('keeps a completed session completed after its token lifetime', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now, sessionTtlMs: 1_000 });
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, 'duplicate');
    await clock.advance(10_000);
    expect((await getSession(emulator, token)).body.status).toBe('failed');
  });

  it('answers 404 session_not_found for an unknown token', async () => {
    const emulator = await emulatorWith();
    const answer = await getSession(emulator, 'A'.repeat(43));
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, error: 'session_not_found' });
  });

  it('requires an API key and refuses a dashboard JWT', async () => {
    const emulator = await emulatorWith();
    const { token } = await openSession(emulator);
    const missing = await getSession(emulator, token, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('invalid_api_key');
    const jwt = await getSession(
      emulator,
      token,
      'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    );
    expect(jwt.status).toBe(401);
    expect(jwt.body.error).toBe('dashboard_token_not_accepted');
  });

  it('forgets each session a day after it expires, and none before', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now, sessionTtlMs: 1_000 });
    const older = await openSession(emulator);
    await clock.advance(500);
    const newer = await openSession(emulator);
    // The older session is 1 ms past its day of retention, the newer one 499 ms short of it.
    await clock.advance(1_000 + 24 * 60 * 60 * 1000 + 1 - 500);
    await openSession(emulator);
    expect((await getSession(emulator, older.token)).status).toBe(404);
    expect((await getSession(emulator, newer.token)).body.status).toBe('expired');
    await clock.advance(500);
    await openSession(emulator);
    expect((await getSession(emulator, newer.token)).status).toBe(404);
  });

  it('forgets sessions a day after they expire', async () => {
    const clock = createTestClock();
    const emulator = await emulatorWith({ now: clock.now, sessionTtlMs: 1_000 });
    const { token } = await openSession(emulator);
    await clock.advance(1_000 + 24 * 60 * 60 * 1000);
    expect((await getSession(emulator, token)).body.status).toBe('expired');
    await clock.advance(1);
    await openSession(emulator); // the store forgets old sessions as new ones are opened
    expect((await getSession(emulator, token)).status).toBe(404);
  });
});
