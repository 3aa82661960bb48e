import { afterEach, describe, expect, it } from 'vitest';
import { ReadGate } from '../../src/client/read-gate.js';
import {
  createReceiver,
  MemoryStore,
  RateLimitError,
  type VerificationCompletedEvent,
} from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// Issue: confirm() turned unauthenticated traffic into API calls. Each outbound request here
// is counted by a real HTTP server standing in for the service.

const SECRET = 'whsec_confirm_bounds_0123456789';
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const { event: _event, extra: _extra, ...RESULT } = fixturePayload({ external_user_id: 'alice' });
const completed = (token: string): Reply => ({
  status: 200,
  json: { token, status: 'verified', external_user_id: 'alice', result: RESULT },
});
const rateLimited = (retryAfterMs: number): Reply => ({
  status: 429,
  json: { success: false, message: 'Rate limit exceeded', retry_after_ms: retryAfterMs },
});
const getsOf = (requests: ScriptedServer['requests']) =>
  requests.filter((request) => request.method === 'GET');

async function receiverAgainst(script: (index: number) => Reply) {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  server = await startScriptedServer((_request, index) => script(index), clock.now);
  const receiver = createReceiver({
    secret: SECRET,
    client: { apiKey: 'fv_test_confirm_bounds', baseUrl: server.url },
    store: new MemoryStore(),
    clock,
    logger: false,
  });
  const delivered: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    delivered.push(event);
  });
  receiver.on('error', () => undefined);
  return { receiver, clock, delivered, server };
}

describe('confirm() turns unauthenticated traffic into API calls (regression)', () => {
  it('200 forged tokens, dot segments among them, cost the service 0 requests', async () => {
    const { receiver, server } = await receiverAgainst(() => completed('x'));
    const forged = [...Array.from({ length: 197 }, (_, i) => `forged_${i}`), '.', '..', 'a/b'];
    const answers = await Promise.all(forged.map((token) => receiver.confirm(token)));
    expect(answers.every((answer) => answer.status === 'unknown')).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('50 concurrent confirm() of one tracked token send one GET and share its answer', async () => {
    const { receiver, server, delivered } = await receiverAgainst(() => completed('tok_alice'));
    await receiver.track('tok_alice', 'alice');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => receiver.confirm('tok_alice')),
    );
    expect(getsOf(server.requests)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set(['verified']));
    expect(delivered).toHaveLength(1);
    // Delivered and confirmed: later calls are answered from the store, with no GET.
    expect((await receiver.confirm('tok_alice')).status).toBe('verified');
    expect(getsOf(server.requests)).toHaveLength(1);
  });

  it('a 429 fails confirm() at once with the retry time, and holds every other confirm()', async () => {
    const { receiver, server } = await receiverAgainst(() => rateLimited(30_000));
    await receiver.track('tok_a', 'alice');
    await receiver.track('tok_b', 'bob');
    const first = await receiver.confirm('tok_a').catch((error: unknown) => error);
    expect(first).toBeInstanceOf(RateLimitError);
    expect((first as RateLimitError).retryAfterMs).toBe(30_000);
    expect(getsOf(server.requests)).toHaveLength(1);
    // Another session while the key is held: refused without asking the service again.
    const second = await receiver.confirm('tok_b').catch((error: unknown) => error);
    expect(second).toBeInstanceOf(RateLimitError);
    expect((second as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    expect((second as RateLimitError).retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(getsOf(server.requests)).toHaveLength(1);
  });

  it('a webhook whose confirmation is rate-limited keeps its payload and is delivered once the service agrees', async () => {
    const { receiver, server, clock, delivered } = await receiverAgainst((index) =>
      index === 0 ? rateLimited(5_000) : completed('tok_alice'),
    );
    await receiver.track('tok_alice', 'alice');
    const delivery = await signedDelivery(fixturePayload({ external_user_id: 'alice' }), {
      secret: SECRET,
    });
    const answer = await receiver.receive(delivery);
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body)).toEqual({ received: true, queued: true });
    expect(delivered).toHaveLength(0);

    await clock.advance(5_000);
    const report = await receiver.sweep();
    expect(report.delivered).toBe(1);
    expect(getsOf(server.requests)).toHaveLength(2);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      source: 'webhook',
      confirmed: true,
      sessionToken: 'tok_alice',
    });
  });
});

describe('ReadGate', () => {
  it('serves background reads before interactive ones', async () => {
    const clock = createTestClock();
    const gate = new ReadGate(clock, 1);
    const order: string[] = [];
    const first = await gate.acquire('background');
    const interactive = gate.acquire('interactive').then((finish) => {
      order.push('interactive');
      return finish;
    });
    const background = gate.acquire('background').then((finish) => {
      order.push('background');
      return finish;
    });
    first();
    (await background)();
    (await interactive)();
    expect(order).toEqual(['background', 'interactive']);
  });

  it('after a 429 lets background readers through only when the wait is over', async () => {
    const clock = createTestClock();
    const gate = new ReadGate(clock, 4);
    gate.holdFor(1_000);
    let through = false;
    const waiting = gate.acquire('background').then((finish) => {
      through = true;
      return finish;
    });
    await clock.advance(999);
    expect(through).toBe(false);
    await clock.advance(1);
    (await waiting)();
    expect(through).toBe(true);
    expect(() => gate.refuseWhileHeld()).not.toThrow();
  });
});
