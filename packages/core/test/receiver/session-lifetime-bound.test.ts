import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  MemoryStore,
  type ReceiverErrorContext,
  type VerificationCompletedEvent,
  type VerificationExpiredEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';
import { drive } from '../support-clock.js';

// A session's lifetime bounds every path, polling that keeps failing included: a webhook's
// claim kept while the service cannot be asked is given up with the session once its lifetime
// is over, and never delivered on the service's later word. (poll-session.ts, the failing
// poll's `now >= session.expiresAt`.)

const SECRET = 'whsec_lifetime_bound_0123456789';
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const OUTAGE_ENDS = T0 + 40 * MINUTE;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const { event: _event, extra: _extra, ...RESULT } = fixturePayload({ external_user_id: 'alice' });
const completed: Reply = {
  status: 200,
  json: { token: 'tok_alice', status: 'verified', external_user_id: 'alice', result: RESULT },
};
const unavailable: Reply = {
  status: 503,
  json: { error: 'service_unavailable', message: 'The service is down.' },
};

describe('a claim the service cannot confirm within the session lifetime', () => {
  it('is not delivered: the session expires (lifetime) and the claim is reported contradicted', async () => {
    const clock = createTestClock(T0);
    // The service answers 503 for 40 minutes, then confirms the claim: too late.
    server = await startScriptedServer(
      () => (clock.now() < OUTAGE_ENDS ? unavailable : completed),
      clock.now,
    );
    const receiver = createReceiver({
      secret: SECRET,
      client: { apiKey: 'fv_test_lifetime_bound', baseUrl: server.url },
      store: new MemoryStore(),
      clock,
      sessionLifetimeMs: 30 * MINUTE,
      logger: false,
    });
    const delivered: VerificationCompletedEvent[] = [];
    const expired: VerificationExpiredEvent[] = [];
    const errors: ReceiverErrorContext[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event);
    });
    receiver.on('verification.expired', (event) => {
      expired.push(event);
    });
    receiver.on('error', (_error, context) => errors.push(context));

    await receiver.track('tok_alice', 'alice');
    const webhook = await signedDelivery(fixturePayload({ external_user_id: 'alice' }), {
      secret: SECRET,
    });
    const answer = await drive(clock, receiver.receive(webhook), 100);
    // Kept with the session while the service cannot be asked.
    expect(JSON.parse(answer.body)).toEqual({ received: true, queued: true });

    while (clock.now() < T0 + 50 * MINUTE) {
      await clock.advance(MINUTE);
      await drive(clock, receiver.sweep(), 100);
    }

    expect(delivered).toEqual([]);
    expect(expired).toHaveLength(1);
    expect(expired[0]).toMatchObject({ reason: 'lifetime', sessionToken: 'tok_alice' });
    const contradicted = errors.filter((context) => context.code === 'webhook_contradicted');
    expect(contradicted).toHaveLength(1);
    // Given up at the first failed look past its 30 minutes: never asked again after.
    const gets = server.requests.filter((request) => request.method === 'GET');
    expect(gets.length).toBeGreaterThan(0);
    expect(Math.max(...gets.map((request) => request.at))).toBeLessThan(T0 + 32 * MINUTE);
    expect(await receiver.confirm('tok_alice')).toEqual({ status: 'expired' });
  });
});
