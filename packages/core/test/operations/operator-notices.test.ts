import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver, MemoryStore } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

// What docs/operations.md and docs/security.md tell an operator to watch reaches them with no
// logger configured (the default logger prints warnings, errors and these notices, not info):
// an erasure, and webhooks still verified with an older secret, which health() counts too.

const NEW = 'whsec_notice_new_0123456789';
const OLD = 'whsec_notice_old_0123456789';
const OLDER_SECRET_LINE =
  'Webhooks are verified with an older secret; the rotation is not finished. Remove it once health().webhooks.olderSecret stays 0 for a session lifetime after the service signs with the new one.';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What reached the console with no logger option: every call, as its printed arguments. */
function printed() {
  const lines: string[] = [];
  for (const level of ['debug', 'info', 'log', 'warn', 'error'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(
        args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '),
      );
    });
  }
  return lines;
}

describe('the lines the docs tell operators to watch reach the default logger', () => {
  it('prints "A user\'s records were erased." with the count, never the id', async () => {
    const lines = printed();
    const receiver = createReceiver({ secret: NEW, client: false, store: new MemoryStore() });
    await receiver.forgetUser('erased_user_7');
    expect(lines).toEqual(['[faceverify] A user\'s records were erased. {"removed":0}']);
  });

  it('prints an older secret in use once per window, and health() counts each webhook', async () => {
    const lines = printed();
    const clock = createTestClock();
    const receiver = createReceiver({
      secret: [
        { label: '2026-11', secret: NEW },
        { label: '2026-05', secret: OLD },
      ],
      client: false,
      store: new MemoryStore(),
      clock,
    });
    receiver.on('verification.completed', () => undefined);
    for (const user of ['old_1', 'old_2']) {
      const delivery = await signedDelivery(fixturePayload({ external_user_id: user }), {
        secret: OLD,
      });
      expect((await receiver.receive(delivery)).status).toBe(200);
    }
    await receiver.receive(
      await signedDelivery(fixturePayload({ external_user_id: 'new_1' }), { secret: NEW }),
    );
    expect(lines).toEqual([`[faceverify] ${OLDER_SECRET_LINE} {"matchedLabel":"2026-05"}`]);
    const health = await receiver.health();
    expect(health.webhooks.accepted).toBe(3);
    expect(health.webhooks.olderSecret).toBe(2);
    expect(health.webhooks.olderSecretLastAt).toBe(new Date(clock.now()).toISOString());
    // A window later with no webhook of the old secret: the rotation may be finished.
    await clock.advance(16 * 60_000);
    expect((await receiver.health()).webhooks).toMatchObject({
      olderSecret: 0,
      olderSecretLastAt: null,
    });
  });
});
