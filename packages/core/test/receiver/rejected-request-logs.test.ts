import { describe, expect, it } from 'vitest';
import { ConfigurationError, createReceiver, MemoryStore, verifyWebhook } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// The first rejection says what to check: the variable, and a parser that rewrites the body.
const SIGNATURE_MISMATCH_LOG =
  'Webhook rejected: signature does not match the raw body. Check FACEVERIFY_WEBHOOK_SECRET (or the secret option) against the signing secret in the service Settings, and that nothing rewrites the body before verification (a body parser mounted first).';

const SECRET = 'whsec_rejected_request_logs_3c9a1f';

function receiverWithClock(secret: string | string[] = SECRET) {
  let now = Date.parse('2026-05-01T00:00:00Z');
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const receiver = createReceiver({
    secret,
    client: false,
    store: new MemoryStore(),
    clock: { ...createTestClock(), now: () => now },
    logger: { warn: (message, fields) => warnings.push({ message, fields }) },
  });
  return { receiver, warnings, advance: (ms: number) => (now += ms) };
}

const unsigned = async () => {
  const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
  return { ...delivery, headers: { 'content-type': 'application/json' } };
};

describe('logs of rejected webhooks', () => {
  it('100 000 unsigned requests in a minute write one line, then one count', async () => {
    const { receiver, warnings, advance } = receiverWithClock();
    const request = await unsigned();
    for (let i = 0; i < 100_000; i += 1) {
      expect((await receiver.receive(request)).status).toBe(401);
      if (i % 1000 === 999) advance(500);
    }
    expect(warnings.map((line) => line.message)).toEqual([
      'Webhook rejected: no X-Webhook-Signature header.',
    ]);
    advance(60_000);
    expect((await receiver.receive(request)).status).toBe(401);
    expect(warnings).toHaveLength(3);
    expect(warnings[1]!.message).toMatch(/and 99999 more rejected in the 60 s after that line/);
    expect(warnings[1]!.fields).toEqual({ suppressed: 99_999, intervalMs: 60_000 });
    expect(warnings[2]!.message).toBe('Webhook rejected: no X-Webhook-Signature header.');
  });

  it('counts each kind of rejection apart, and an interval without floods writes each line', async () => {
    const { receiver, warnings, advance } = receiverWithClock();
    const missing = await unsigned();
    const forged = await signedDelivery(fixturePayload(), {
      secret: 'whsec_not_the_secret_at_all',
    });
    for (let i = 0; i < 50; i += 1) {
      await receiver.receive(missing);
      await receiver.receive(forged);
    }
    expect(warnings.map((line) => line.message)).toEqual([
      'Webhook rejected: no X-Webhook-Signature header.',
      SIGNATURE_MISMATCH_LOG,
    ]);
    advance(60_000);
    await receiver.receive(forged);
    expect(warnings.slice(2).map((line) => line.message)).toEqual([
      expect.stringMatching(
        /^Webhook rejected: signature does not match the raw body\. Check FACEVERIFY_WEBHOOK_SECRET .* …and 49 more/,
      ),
      SIGNATURE_MISMATCH_LOG,
    ]);
    advance(60_000);
    await receiver.receive(forged);
    expect(warnings).toHaveLength(5);
  });
});

describe('weak webhook secrets', () => {
  it.each([
    ['a space', ' '],
    ['tabs and spaces', '   \t'],
    ['the older of two secrets', ['whsec_good_secret_of_length', '  ']],
  ])(
    'refuses a secret of whitespace only (%s) at configuration, saying how to fix it',
    (_name, secret) => {
      let caught: unknown;
      try {
        createReceiver({ secret, client: false });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigurationError);
      expect((caught as Error).message).toMatch(/only whitespace.*Settings/);
    },
  );

  it('verifyWebhook refuses a whitespace secret as configuration, not as a bad signature', async () => {
    const delivery = await signedDelivery(fixturePayload(), { secret: ' ' });
    await expect(verifyWebhook(delivery.body, delivery.signature, ' ')).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });

  it('accepts a secret shorter than 16 bytes with a single warning that never shows it', async () => {
    const short = 'whsec_short';
    const { receiver, warnings } = receiverWithClock([short, 'whsec_long_enough_secret_0001']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/shorter than 16 bytes/);
    expect(warnings[0]!.fields).toEqual({ labels: ['secret#0'] });
    expect(JSON.stringify(warnings)).not.toContain(short);
    for (let i = 0; i < 3; i += 1) {
      const delivery = await signedDelivery(fixturePayload({ external_user_id: `user-${i}` }), {
        secret: short,
      });
      expect((await receiver.receive(delivery)).status).toBe(200);
    }
    expect(warnings.filter((line) => /secret/i.test(line.message))).toHaveLength(1);
  });

  it('writes no warning for a secret of 16 bytes or more', () => {
    const { warnings } = receiverWithClock('0123456789abcdef');
    expect(warnings).toEqual([]);
  });
});
