import { describe, expect, it } from 'vitest';
import { ActivityWindow } from '../../src/operations/activity-window.js';
import {
  ALARM_RULES,
  type AlarmCode,
  Alarms,
  type ReceiverAlert,
} from '../../src/operations/alarms.js';
import { RefusedBodies } from '../../src/operations/refused-bodies.js';
import { fixturePayload } from '../../src/testing/index.js';
import { createTestClock } from '../../src/testing/test-clock.js';

/** A result of `user`, as the service sends it (`confidence` tells one result from another). */
const result = (user: string, confidence = 0.97) =>
  fixturePayload({ external_user_id: user, confidence });
const body = (user: string, confidence?: number) =>
  new TextEncoder().encode(JSON.stringify(result(user, confidence)));

function watch() {
  const clock = createTestClock();
  const raised: ReceiverAlert[] = [];
  const activity: ActivityWindow = new ActivityWindow(clock, 15 * 60_000, () =>
    alarms.check(clock.now()),
  );
  const alarms = new Alarms(activity, (alert) => raised.push(alert));
  return { activity, raised, refused: new RefusedBodies(activity, () => clock.now()) };
}

describe("the secret alarm rests on the service's own traffic", () => {
  it("one webhook of a user whose result polling recovers: '1 webhook failed', the variable named", () => {
    const { activity, raised, refused } = watch();
    activity.record('signature_invalid');
    refused.note(body('alice'), 'signature_invalid');
    activity.record('delivered_by_poll');
    refused.recovered(result('alice'));
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
    expect(raised[0]!.message).toMatch(
      /^1 webhook failed its signature check in the last 15 minutes while polling recovered its result:/,
    );
    expect(raised[0]!.message).toContain('FACEVERIFY_WEBHOOK_SECRET');
  });

  it("a stranger's badly signed body, while polling recovers other users' results, raises nothing", () => {
    const { activity, raised, refused } = watch();
    activity.record('signature_invalid');
    refused.note(body('mallory'), 'signature_invalid');
    refused.note(new TextEncoder().encode('not json'), 'signature_invalid');
    for (const user of ['alice', 'bob', 'carol']) {
      activity.record('delivered_by_poll');
      refused.recovered(result(user));
    }
    expect(raised.map((alert) => alert.code)).toEqual(['webhooks_missing']);
  });

  it('a refused body of an earlier result of the user (an old-secret webhook sent again) is not the recovered one', () => {
    const { activity, raised, refused } = watch();
    activity.record('signature_invalid');
    // Alice's first result, signed with a secret a finished rotation removed, sent again.
    refused.note(body('alice', 0.91), 'signature_invalid');
    activity.record('delivered_by_poll');
    refused.recovered(result('alice', 0.42));
    expect(raised).toEqual([]);
    // Her webhook of the recovered result itself, refused, would be the evidence.
    refused.note(body('alice', 0.42), 'signature_invalid');
    activity.record('delivered_by_poll');
    refused.recovered(result('alice', 0.42));
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
  });
});

describe('alarm messages agree with their count', () => {
  const message = (code: AlarmCode, count: number) => {
    const rule = ALARM_RULES.find((candidate) => candidate.code === code);
    return rule?.message(count, 15, watch().activity) ?? `no rule ${code}`;
  };

  it.each([
    [
      'secret_mismatch',
      1,
      /^1 webhook failed its signature check in the last 15 minutes while polling recovered its result:/,
    ],
    [
      'secret_mismatch',
      2,
      /^2 webhooks failed their signature check in the last 15 minutes while polling recovered their results:/,
    ],
    [
      'results_undeliverable',
      1,
      /^1 result was given up as undeliverable in the last 15 minutes .*; it was passed to verification.undeliverable handlers. Fix the handler, then deliver it again/,
    ],
    [
      'results_undeliverable',
      2,
      /^2 results were given up as undeliverable in the last 15 minutes .*; they were passed to verification.undeliverable handlers. Fix the handler, then deliver them again/,
    ],
  ] as const)('%s, for a count of %i', (code, count, expected) => {
    expect(message(code, count)).toMatch(expected);
  });
});

describe('an alarm is raised again only on new evidence', () => {
  it('a store failure 15 minutes ago, still in the oldest bucket, raises nothing at an unrelated count', async () => {
    const clock = createTestClock(Date.UTC(2030, 0, 1, 0, 0, 50));
    const raised: ReceiverAlert[] = [];
    const activity: ActivityWindow = new ActivityWindow(clock, 15 * 60_000, () =>
      alarms.check(clock.now()),
    );
    const alarms = new Alarms(activity, (alert) => raised.push(alert));
    activity.record('store_unavailable');
    expect(raised.map((alert) => alert.code)).toEqual(['store_unavailable']);
    // Past the window since the raise, but the failure's minute is still counted.
    await clock.advance(15 * 60_000 + 5_000);
    expect(activity.count('store_unavailable')).toBe(1);
    activity.record('delivered_by_poll');
    expect(raised).toHaveLength(1);
    // A new failure is new evidence.
    activity.record('store_unavailable');
    expect(raised.map((alert) => alert.code)).toEqual(['store_unavailable', 'store_unavailable']);
  });
});
