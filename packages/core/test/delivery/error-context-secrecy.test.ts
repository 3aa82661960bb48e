import { afterEach, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverErrorContext } from '../../src/index.js';
import { createTestClock, fixturePayload } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// Issue: error contexts carried full session tokens (`expired-handler`) and the signed
// `frontImageUrl` with its signature (`handler`). docs/security.md: contexts name a session
// by a short `tokenId`, and a signed URL never leaves without its query removed.

const TOKEN = 'tok_credential_0123456789abcdef';
const SIGNED_QUERY = 'sig=x&exp=1763776000';
let service: ScriptedServer | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function receiverAnswering(reply: Reply) {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  service = await startScriptedServer(() => reply, clock.now);
  const reported: ReceiverErrorContext[] = [];
  const receiver = createReceiver({
    secret: 'whsec_secrecy_0123456789',
    client: { apiKey: 'fv_test_secrecy', baseUrl: service.url },
    store: new MemoryStore(),
    clock,
    logger: false,
    pollScheduleMs: [1_000],
    sessionLifetimeMs: 10_000,
  }).on('error', (_error, context) => {
    reported.push(context);
  });
  await receiver.track(TOKEN, 'user_123');
  return { receiver, clock, reported };
}

it('a failing verification.completed handler is reported without the token or the signed URL', async () => {
  const { event: _e, extra: _x, ...result } = fixturePayload();
  const { receiver, clock, reported } = await receiverAnswering({
    status: 200,
    json: { token: TOKEN, status: 'verified', external_user_id: 'user_123', result },
  });
  receiver.on('verification.completed', () => {
    throw new Error('database down');
  });
  await clock.advance(1_000);
  await receiver.sweep();
  const handlerReport = reported.find((context) => context.stage === 'handler');
  expect(handlerReport?.tokenId).toBe('tok_cr…');
  expect(handlerReport?.event).toMatchObject({ type: 'verification.completed' });
  expect(JSON.stringify(handlerReport)).toContain('files.example.test/front/abc.jpg');
  const text = JSON.stringify(reported);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(SIGNED_QUERY);
});

it('a failing verification.expired handler is reported without the token', async () => {
  const { receiver, clock, reported } = await receiverAnswering({
    status: 200,
    json: { token: TOKEN, status: 'pending', external_user_id: 'user_123' },
  });
  receiver.on('verification.expired', () => {
    throw new Error('mailer down');
  });
  await clock.advance(10_000);
  await receiver.sweep();
  const expiredReport = reported.find((context) => context.stage === 'expired-handler');
  expect(expiredReport?.tokenId).toBe('tok_cr…');
  expect(expiredReport?.event).toMatchObject({ type: 'verification.expired', reason: 'lifetime' });
  expect(JSON.stringify(reported)).not.toContain(TOKEN);
});
