import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// A webhook matched to a session by its user alone is confirmed with the service before any
// handler runs. When `ackAfterMs` passes first, the 202's log line says what still runs: the
// confirmation the service has not answered, or the handlers once it has.

const SECRET = 'whsec_confirmation_deadline';
const USER = 'deadline_user';
const { event: _e, extra: _x, ...RESULT } = fixturePayload({ external_user_id: USER });
let service: ScriptedServer | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** A webhook of a tracked session of `USER`, answered once the test clock passes `ackAfterMs`. */
async function acknowledgedAtTheDeadline(reply: Reply, handler: () => Promise<void>) {
  const clock = createTestClock();
  service = await startScriptedServer(() => reply, clock.now);
  const warned: string[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    client: { apiKey: 'fv_test_deadline', baseUrl: service.url },
    store: new MemoryStore(),
    clock,
    logger: { warn: (message) => warned.push(message) },
  });
  receiver.on('error', () => undefined);
  let handlerStarted = false;
  receiver.on('verification.completed', () => {
    handlerStarted = true;
    return handler();
  });
  await receiver.track('tok_deadline', USER);
  const delivery = await signedDelivery(fixturePayload({ external_user_id: USER }), {
    secret: SECRET,
  });
  const answering = receiver.receive(delivery);
  // The confirmation reaches the server (real I/O) before the deadline is moved past.
  while (service.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  // An answer of the service starts the handler: that too happens before the deadline.
  if ('status' in reply) {
    while (!handlerStarted) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await clock.advance(4_000);
  const answer = await answering;
  return { answer, warned, handlerStarted };
}

describe('a webhook acknowledged at ackAfterMs', () => {
  it('while its confirmation hangs, says the service has not answered, not that handlers run', async () => {
    const { answer, warned, handlerStarted } = await acknowledgedAtTheDeadline(
      { hang: 'before-headers' },
      () => Promise.resolve(),
    );
    expect(answer.status).toBe(202);
    expect(handlerStarted).toBe(false);
    expect(warned).toEqual([
      "The service has not answered the webhook's confirmation (GET /v1/sessions/:token) yet, so no handler has started; they run once it answers, or the next sweep asks again; acknowledged with 202 to keep the sender.",
    ]);
  });

  it('once the service confirmed it and a handler runs, says handlers are still running', async () => {
    let release: () => void = () => undefined;
    const { answer, warned, handlerStarted } = await acknowledgedAtTheDeadline(
      {
        status: 200,
        json: { token: 'tok_deadline', status: 'verified', external_user_id: USER, result: RESULT },
      },
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    release();
    expect(answer.status).toBe(202);
    expect(handlerStarted).toBe(true);
    expect(warned).toEqual([
      'Handlers are still running; acknowledged with 202 to keep the sender.',
    ]);
  });
});
