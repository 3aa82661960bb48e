import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, type FaultSettings, startEmulator } from '../src/index.js';
import { control, getSession, openSession, postVerify } from './support/api.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const SECRET = 'whsec_faults';

async function setup(
  options: Parameters<typeof startEmulator>[0] = {},
): Promise<{ emulator: Emulator; receiver: WebhookReceiver }> {
  const receiver = await startWebhookReceiver({ secret: SECRET });
  const emulator = await startEmulator({
    signingSecret: SECRET,
    callbackUrl: receiver.url,
    rateLimits: { complete: { limit: 1_000, windowMs: 60_000 } },
    ...options,
  });
  cleanups.push(
    () => emulator.close(),
    () => receiver.close(),
  );
  return { emulator, receiver };
}

async function completeMany(emulator: Emulator, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const { token } = await openSession(emulator, `user-${index}`);
    await emulator.completeSession(token, 'verified');
  }
  await emulator.webhooksSettled();
}

function userOf(body: Buffer): string {
  return String(
    (JSON.parse(body.toString('utf8')) as { external_user_id: unknown }).external_user_id,
  );
}

describe('webhook faults', () => {
  it('drop: the next N webhooks are not sent, the following ones are', async () => {
    const { emulator, receiver } = await setup({ faults: { dropWebhooks: { next: 2 } } });
    await completeMany(emulator, 3);
    expect(receiver.received.map((webhook) => userOf(webhook.rawBody))).toEqual(['user-2']);
    expect(emulator.stats().webhooks).toMatchObject({
      events: 3,
      dropped: 2,
      sent: 1,
      delivered: 1,
    });
    expect(emulator.faults()).toEqual({});
  });

  it('drop: the session result is unaffected and can still be polled', async () => {
    const { emulator, receiver } = await setup({ faults: { dropWebhooks: true } });
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, 'high_risk');
    await emulator.webhooksSettled();
    expect(receiver.received).toHaveLength(0);
    expect((await getSession(emulator, token)).body).toMatchObject({
      status: 'failed',
      result: { risk: 'high' },
    });
  });

  it('drop by probability follows the seed: the same seed drops the same webhooks', async () => {
    const runs: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const { emulator, receiver } = await setup({
        seed: 'drop-seed',
        faults: { dropWebhooks: 0.5 },
      });
      await completeMany(emulator, 20);
      runs.push(receiver.received.map((webhook) => userOf(webhook.rawBody)).sort());
      expect(emulator.stats().webhooks.dropped + emulator.stats().webhooks.sent).toBe(20);
    }
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]?.length).toBeGreaterThan(0);
    expect(runs[0]?.length).toBeLessThan(20);
    const other = await setup({ seed: 'another-seed', faults: { dropWebhooks: 0.5 } });
    await completeMany(other.emulator, 20);
    expect(other.receiver.received.map((webhook) => userOf(webhook.rawBody)).sort()).not.toEqual(
      runs[0],
    );
  });

  it('delay: the webhook arrives no sooner than the delay', async () => {
    const { emulator, receiver } = await setup({ faults: { delayWebhooks: { ms: 600 } } });
    const { token } = await openSession(emulator);
    const startedAt = Date.now();
    await emulator.completeSession(token, 'verified');
    const [webhook] = await receiver.waitFor(1);
    const arrivedAt = webhook?.receivedAt ?? 0;
    // Timers may fire a millisecond early: allow for it, nothing more.
    expect(arrivedAt - startedAt).toBeGreaterThanOrEqual(599);
    expect(webhook?.verified).toBe(true);
    expect(emulator.stats().webhooks.delayed).toBe(1);
  });

  it('delay: the completion is answered while the webhook is held; close() abandons it', async () => {
    // Held back far longer than the test may run: the order is certain, and settling after
    // close() proves the webhook was abandoned.
    const { emulator, receiver } = await setup({ faults: { delayWebhooks: { ms: 3_600_000 } } });
    const { token } = await openSession(emulator);
    await emulator.completeSession(token, 'verified');
    expect(emulator.stats().webhooks).toMatchObject({ delayed: 1, sent: 0 });
    await emulator.close();
    await emulator.webhooksSettled();
    expect(receiver.received).toHaveLength(0);
    expect(emulator.stats().webhooks).toMatchObject({ delayed: 1, sent: 0 });
  });

  it('duplicate: the same bytes and signature arrive twice, both valid', async () => {
    const { emulator, receiver } = await setup({ faults: { duplicateWebhooks: { next: 1 } } });
    await completeMany(emulator, 2);
    expect(receiver.received).toHaveLength(3);
    const [first, second, third] = receiver.received;
    expect(first?.rawBody.equals(second?.rawBody ?? Buffer.alloc(0))).toBe(true);
    expect(first?.signature).toBe(second?.signature);
    expect(receiver.received.every((webhook) => webhook.verified)).toBe(true);
    expect(userOf(third?.rawBody ?? Buffer.from('{}'))).toBe('user-1');
    expect(emulator.stats().webhooks).toMatchObject({ events: 2, sent: 3, duplicated: 1 });
  });

  it('corrupt: the signature is well-formed but does not match', async () => {
    const { emulator, receiver } = await setup({ faults: { corruptWebhooks: { next: 1 } } });
    await completeMany(emulator, 2);
    const [corrupted, intact] = receiver.received;
    expect(corrupted?.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(corrupted?.verified).toBe(false);
    expect(intact?.verified).toBe(true);
    // The receiver refused it with 401: that is a failed delivery, and it is not retried.
    expect(emulator.stats().webhooks).toMatchObject({
      corrupted: 1,
      sent: 2,
      failed: 1,
      delivered: 1,
    });
  });
});

describe('session poll faults', () => {
  it('poll5xx: the next N polls answer a server error, then the session comes back', async () => {
    const { emulator } = await setup({ faults: { poll5xx: { next: 2, status: 502 } } });
    const { token } = await openSession(emulator);
    for (let attempt = 0; attempt < 2; attempt++) {
      const failed = await getSession(emulator, token);
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ success: false, error: 'service_unavailable' });
    }
    expect((await getSession(emulator, token)).status).toBe(200);
    expect(emulator.stats().pollFaults.serverErrors).toBe(2);
  });

  it('poll5xx answers 503 by default', async () => {
    const { emulator } = await setup({ faults: { poll5xx: true } });
    const { token } = await openSession(emulator);
    expect((await getSession(emulator, token)).status).toBe(503);
  });

  it('poll429: a storm of 429 with retry_after_ms, then the session comes back', async () => {
    const { emulator } = await setup({ faults: { poll429: { next: 3, retryAfterMs: 250 } } });
    const { token } = await openSession(emulator);
    for (let attempt = 0; attempt < 3; attempt++) {
      const limited = await getSession(emulator, token);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({
        success: false,
        message: expect.stringMatching(/rate limit/i),
        retry_after_ms: 250,
      });
      expect(limited.headers.get('retry-after')).toBe('1');
    }
    expect((await getSession(emulator, token)).body.status).toBe('pending');
    expect(emulator.stats().pollFaults.rateLimited).toBe(3);
  });

  it('poll faults do not hit requests refused for their API key', async () => {
    const { emulator } = await setup({ faults: { poll5xx: { next: 1 } } });
    const { token } = await openSession(emulator);
    expect((await getSession(emulator, token, null)).status).toBe(401);
    expect((await getSession(emulator, token)).status).toBe(503);
  });
});

describe('session start faults', () => {
  it('verify5xx: answers a server error without creating the session, then starts go through', async () => {
    const { emulator } = await setup({ faults: { verify5xx: { next: 1, status: 502 } } });
    const failed = await postVerify(emulator, { external_user_id: 'ada' });
    expect(failed.status).toBe(502);
    expect(emulator.stats().sessions.pending).toBe(0);
    expect((await postVerify(emulator, { external_user_id: 'ada' })).status).toBe(201);
    expect(emulator.stats().sessions.pending).toBe(1);
  });

  it('verify5xx with created: the session exists though the start was answered 503', async () => {
    const { emulator } = await setup({ faults: { verify5xx: { next: 1, created: true } } });
    const failed = await postVerify(emulator, { external_user_id: 'ada' });
    expect(failed.status).toBe(503);
    expect(emulator.stats().sessions.pending).toBe(1);
  });

  it('delayVerify: the answer comes no sooner than the delay, the session created before it', async () => {
    const { emulator } = await setup({ faults: { delayVerify: { ms: 300, next: 1 } } });
    const startedAt = performance.now();
    const answer = postVerify(emulator, { external_user_id: 'ada' });
    await expect.poll(() => emulator.stats().sessions.pending).toBe(1);
    expect((await answer).status).toBe(201);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(300);
    expect(emulator.faults()).toEqual({});
  });

  it('refuses a verify5xx.created that is not a boolean, naming it', async () => {
    const { emulator } = await setup();
    expect(() => emulator.setFaults({ verify5xx: { created: 'yes' as never } })).toThrow(
      'verify5xx.created',
    );
  });
});

describe('fault settings', () => {
  it('are replaced at runtime through setFaults and read back with what is left', async () => {
    const { emulator } = await setup({ faults: { dropWebhooks: 0.3 } });
    expect(emulator.faults()).toEqual({ dropWebhooks: { next: 0, probability: 0.3 } });
    emulator.setFaults({ poll429: { next: 2 } });
    expect(emulator.faults()).toEqual({ poll429: { next: 2, probability: 0, retryAfterMs: 1000 } });
    const { token } = await openSession(emulator);
    await getSession(emulator, token);
    expect(emulator.faults()).toEqual({ poll429: { next: 1, probability: 0, retryAfterMs: 1000 } });
    emulator.setFaults({});
    expect(emulator.faults()).toEqual({});
  });

  it('are set and read through PUT and GET /__emulator/faults', async () => {
    const { emulator, receiver } = await setup();
    const settings: FaultSettings = {
      dropWebhooks: { next: 1 },
      delayWebhooks: { ms: 10 },
      poll5xx: { probability: 0.25 },
    };
    const put = await control(emulator, 'PUT', 'faults', settings);
    expect(put.status).toBe(200);
    const expected = {
      dropWebhooks: { next: 1, probability: 0 },
      delayWebhooks: { next: 0, probability: 1, ms: 10 },
      poll5xx: { next: 0, probability: 0.25, status: 503 },
    };
    expect(put.body).toEqual(expected);
    expect((await control(emulator, 'GET', 'faults')).body).toEqual(expected);
    await completeMany(emulator, 2);
    expect(receiver.received).toHaveLength(1);
    expect(emulator.stats().webhooks).toMatchObject({ dropped: 1, delayed: 1 });
  });

  it.each([
    ['an unknown fault', { dropWebhook: true }, /dropWebhook/],
    ['a probability above 1', { dropWebhooks: 1.5 }, /probability/],
    ['a negative next', { corruptWebhooks: { next: -1 } }, /next/],
    ['a misspelt field', { poll429: { propability: 0.5 } }, /propability/],
    ['a delay without ms', { delayWebhooks: { next: 1 } }, /ms/],
    ['a delay given as a number', { delayWebhooks: 0.5 }, /delayWebhooks/],
    ['a 5xx status that is not one', { poll5xx: { status: 404 } }, /status/],
  ])('refuse %s with 400 naming it, and keep the faults in force', async (_case, body, field) => {
    const { emulator } = await setup({ faults: { duplicateWebhooks: true } });
    const put = await control(emulator, 'PUT', 'faults', body);
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ success: false, error: 'invalid_request' });
    expect(String(put.body.message)).toMatch(field);
    expect(emulator.faults()).toEqual({ duplicateWebhooks: { next: 0, probability: 1 } });
    expect(() => emulator.setFaults(body as FaultSettings)).toThrow(field);
  });
});

describe('GET /__emulator/stats', () => {
  it('counts sessions by state and webhooks', async () => {
    const { emulator } = await setup({ faults: { dropWebhooks: { next: 1 } } });
    await openSession(emulator, 'still-pending');
    await completeMany(emulator, 2);
    const liveness = await openSession(emulator, 'liveness');
    await emulator.completeSession(liveness.token, 'liveness_failed');
    await emulator.webhooksSettled();
    const stats = await control(emulator, 'GET', 'stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      sessions: { pending: 1, verified: 2, failed: 1, expired: 0 },
      webhooks: {
        events: 3,
        sent: 2,
        delivered: 2,
        failed: 0,
        dropped: 1,
        delayed: 0,
        duplicated: 0,
        corrupted: 0,
        skipped: 0,
      },
      pollFaults: { serverErrors: 0, rateLimited: 0 },
      rateLimited: { verify: 0, complete: 0 },
    });
    expect(emulator.stats()).toEqual(stats.body);
  });

  it('GET /__emulator/health answers ok', async () => {
    const { emulator } = await setup();
    expect((await control(emulator, 'GET', 'health')).body).toEqual({ ok: true });
  });
});
