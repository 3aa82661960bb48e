import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverOptions } from '../src/index.js';
import { WEBHOOK_OUTCOMES, type WebhookOutcome } from '../src/receiver/webhook-outcomes.js';
import { createTestClock, fixturePayload, signedDelivery } from '../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from './client/scripted-server.js';

// The outcome table, row by row: each row is made to happen, and its answer is the table's.

const SECRET = 'whsec_outcomes_0123456789';
const USER = 'outcome_user';
let service: ScriptedServer | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

const { event: _e, extra: _x, ...RESULT } = fixturePayload({ external_user_id: USER });
const sessionReply = (status: 'pending' | 'verified'): Reply => ({
  status: 200,
  json: {
    token: 'tok',
    status,
    external_user_id: USER,
    ...(status === 'verified' ? { result: RESULT } : {}),
  },
});

async function setUp(options: Partial<ReceiverOptions> & { reply?: () => Reply } = {}) {
  const { reply, ...receiverOptions } = options;
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  if (reply) service = await startScriptedServer(reply, clock.now);
  const receiver = createReceiver({
    secret: SECRET,
    client: service ? { apiKey: 'fv_test_outcomes', baseUrl: service.url } : false,
    store: new MemoryStore(),
    clock,
    logger: false,
    ...receiverOptions,
  });
  receiver.on('error', () => undefined);
  const delivery = await signedDelivery(fixturePayload({ external_user_id: USER }), {
    secret: SECRET,
  });
  return { receiver, clock, delivery };
}

/** How each outcome is made to happen; the answer it returns is checked against the table. */
const scenarios: Record<WebhookOutcome, () => Promise<{ status: number; body: string }>> = {
  async delivered() {
    const { receiver, delivery } = await setUp();
    receiver.on('verification.completed', () => undefined);
    return receiver.receive(delivery);
  },
  async duplicate() {
    const { receiver, delivery } = await setUp();
    await receiver.receive(delivery);
    return receiver.receive(delivery);
  },
  async ignored() {
    const { receiver } = await setUp();
    const other = await signedDelivery(
      { ...fixturePayload(), event: 'verification.started' },
      {
        secret: SECRET,
      },
    );
    return receiver.receive(other);
  },
  async untracked() {
    const { receiver, delivery } = await setUp({ reply: () => sessionReply('verified') });
    return receiver.receive(delivery);
  },
  async contradicted() {
    const { receiver, delivery } = await setUp({ reply: () => sessionReply('pending') });
    await receiver.track('tok_contradicted', USER);
    return receiver.receive(delivery);
  },
  async processing() {
    const { receiver, delivery, clock } = await setUp();
    let release: (() => void) | undefined;
    receiver.on(
      'verification.completed',
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const answer = receiver.receive(delivery);
    await clock.advance(4_000);
    const processing = await answer;
    release?.();
    return processing;
  },
  async queued() {
    const { receiver, delivery } = await setUp({
      reply: () => ({
        status: 429,
        json: { success: false, message: 'slow down', retry_after_ms: 5_000 },
      }),
    });
    await receiver.track('tok_queued', USER);
    return receiver.receive(delivery);
  },
  async settling() {
    const { receiver, delivery } = await setUp({ reply: () => sessionReply('pending') });
    await receiver.track('tok_settling_1', USER);
    await receiver.track('tok_settling_2', USER);
    return receiver.receive(delivery);
  },
  async handler_failed() {
    const { receiver, delivery } = await setUp();
    receiver.on('verification.completed', () => {
      throw new Error('database down');
    });
    return receiver.receive(delivery);
  },
};

describe('every outcome of a signed webhook has one answer', () => {
  it.each(Object.keys(WEBHOOK_OUTCOMES) as WebhookOutcome[])('%s', async (outcome) => {
    const answer = await scenarios[outcome]();
    expect(answer.status).toBe(WEBHOOK_OUTCOMES[outcome].status);
    expect(JSON.parse(answer.body)).toEqual(WEBHOOK_OUTCOMES[outcome].body);
  });

  it('docs/guarantees.md lists each outcome with its status and body', () => {
    const doc = readFileSync(new URL('../../../docs/guarantees.md', import.meta.url), 'utf8');
    for (const [outcome, { status, body }] of Object.entries(WEBHOOK_OUTCOMES)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${outcome}\``));
      expect(row, `a row for ${outcome}`).toBeDefined();
      expect(row).toContain(`| ${status} `);
      expect(row).toContain(`\`${JSON.stringify(body)}\``);
    }
  });
});
