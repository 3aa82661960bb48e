import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ActivityWindow } from '../../src/operations/activity-window.js';
import { Alarms, type ReceiverAlert } from '../../src/operations/alarms.js';
import { RefusedBodies } from '../../src/operations/refused-bodies.js';
import { fixturePayload } from '../../src/testing/fixture-payload.js';
import { createTestClock } from '../../src/testing/test-clock.js';
import type { VerificationPayload } from '../../src/wire/payload/types.js';

const WINDOW_MS = 15 * 60_000;
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** The service's result of `user`, as its webhook says it and polling later tells it. */
const resultOf = (user: string, index = 0): VerificationPayload =>
  fixturePayload({ external_user_id: user, confidence: 0.9 + (index % 90) / 1000 });

function watch() {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  const raised: ReceiverAlert[] = [];
  const activity: ActivityWindow = new ActivityWindow(clock, WINDOW_MS, () =>
    alarms.check(clock.now()),
  );
  const alarms = new Alarms(activity, (alert) => raised.push(alert));
  // A fixed rank key: which users a full record keeps is the same at every run.
  const refused = new RefusedBodies(activity, () => clock.now(), 0x2545f491);
  /** A webhook refused for its signature: counted, and its body noted. */
  const refuse = (body: unknown) => {
    activity.record('signature_invalid');
    refused.note(encode(body), 'signature_invalid');
  };
  /** Polling recovered `result` and delivered it. */
  const recover = (result: VerificationPayload) => {
    activity.record('delivered_by_poll');
    refused.recovered(result);
  };
  return { clock, activity, raised, refused, refuse, recover };
}

describe('the refused bodies a wrong secret leaves, against a flood of made-up users', () => {
  it('1,001 badly signed bodies naming made-up users do not push out 20 real webhooks refused by a wrong secret: secret_mismatch, not webhooks_missing', () => {
    const { raised, refuse, recover } = watch();
    const real = Array.from({ length: 20 }, (_, index) => resultOf(`user-${index}`, index));
    // The service's webhooks come first, then the flood, then polling recovers their results.
    for (const result of real) refuse(result);
    for (let index = 0; index < 1_001; index++) {
      refuse({ ...resultOf(`made-up-${index}`), confidence: 0.5 });
    }
    for (const result of real) recover(result);
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
  });

  it('which users a full record keeps does not depend on their order: a flood sent before the real webhooks keeps them as well', () => {
    const { raised, refuse, recover } = watch();
    const real = Array.from({ length: 20 }, (_, index) => resultOf(`user-${index}`, index));
    for (let index = 0; index < 1_001; index++) refuse(resultOf(`made-up-${index}`));
    for (const result of real) refuse(result);
    for (const result of real) recover(result);
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
  });
});

describe('a flood of more users than the record keeps', () => {
  it('10,000 made-up users with a wrong secret: never webhooks_missing and its wrong fix; secret_mismatch once a kept real body is recovered', () => {
    const { raised, refuse, recover } = watch();
    const real = Array.from({ length: 40 }, (_, index) => resultOf(`user-${index}`, index));
    for (let index = 0; index < 10_000; index++) refuse(resultOf(`made-up-${index}`));
    for (const result of real) refuse(result);
    for (const result of real) recover(result);
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
  });

  it('with the callback URL wrong, results by polling alone raise webhooks_missing once the flood has left the window', async () => {
    const { clock, raised, refuse, recover } = watch();
    for (let index = 0; index < 2_000; index++) refuse(resultOf(`made-up-${index}`));
    for (const user of ['alice', 'bob', 'carol']) recover(resultOf(user));
    expect(raised).toEqual([]);
    await clock.advance(WINDOW_MS + 60_000);
    for (const user of ['dave', 'erin', 'frank']) recover(resultOf(user));
    expect(raised.map((alert) => alert.code)).toEqual(['webhooks_missing']);
  });
});

describe('a body a user sends of herself is not the service’s', () => {
  it('one badly signed body naming herself, then her own session completed and polled: no secret_mismatch on a right setup', () => {
    const { raised, refuse, recover } = watch();
    // She cannot know the result before the service decides it: she guesses.
    refuse(fixturePayload({ external_user_id: 'eve', confidence: 0.95 }));
    recover(fixturePayload({ external_user_id: 'eve', confidence: 0.937 }));
    expect(raised).toEqual([]);
  });

  it('the service’s own body, refused, then polled with the same result: secret_mismatch', () => {
    const { raised, refuse, recover } = watch();
    refuse(resultOf('alice', 37));
    recover(resultOf('alice', 37));
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
  });

  it('a later body of the same user replaces the earlier one: one guess per user, not one per request', () => {
    const { raised, refuse, recover } = watch();
    refuse(fixturePayload({ external_user_id: 'eve', confidence: 0.937 }));
    refuse(fixturePayload({ external_user_id: 'eve', confidence: 0.95 }));
    recover(fixturePayload({ external_user_id: 'eve', confidence: 0.937 }));
    expect(raised).toEqual([]);
  });
});

describe('a refused body is read, not parsed', () => {
  it('the service’s body written with spaces and line breaks, its user id escaped, is evidence as the compact one is', () => {
    const { activity, raised, refused, recover } = watch();
    const result = resultOf('zoë "z" \\ 7', 12);
    const spaced = JSON.stringify(result, null, 2).replaceAll('ë', '\\u00eb');
    activity.record('signature_invalid');
    refused.note(new TextEncoder().encode(spaced), 'signature_invalid');
    recover(result);
    expect(raised.map((alert) => alert.code)).toEqual(['secret_mismatch']);
  });

  it('a later body of the user whose outcome is unreadable replaces the earlier guess and matches no result', () => {
    const { raised, refuse, recover } = watch();
    refuse(resultOf('alice', 37));
    refuse({ ...resultOf('alice', 37), reason: { code: 'made up' } });
    recover(resultOf('alice', 37));
    expect(raised).toEqual([]);
  });

  it('a body that is no verification.completed, or names no user, is not kept', () => {
    const { refused, refuse } = watch();
    refuse({ ...resultOf('alice'), event: 'verification.started' });
    refuse({ ...resultOf('bob'), external_user_id: 42 });
    refused.note(new Uint8Array([0xff, 0xfe, 0x00, 0x22]), 'signature_invalid');
    expect(refused.size).toEqual({ users: 0, bytes: 0 });
  });
});

describe('the record of refused bodies is bounded', () => {
  it('200 bodies naming 255 KiB user ids keep nothing: no session has such an id', () => {
    const { refused, refuse } = watch();
    for (let index = 0; index < 200; index++) {
      refuse(resultOf(`${index}-${'x'.repeat(255 * 1024)}`));
    }
    expect(refused.size).toEqual({ users: 0, bytes: 0 });
  });

  it('bodies naming the longest ids a session can have keep at most 256 KiB', () => {
    const { refused, refuse } = watch();
    for (let index = 0; index < 2_000; index++) {
      refuse(resultOf(`${index}-`.padEnd(256, 'y')));
    }
    const { users, bytes } = refused.size;
    expect(users).toBeGreaterThan(100);
    expect(bytes).toBeLessThanOrEqual(256 * 1024);
  });

  it('a kept user holds its id only, not the body it was read from: 1,000 users of 100 KiB bodies take a few MiB at most', () => {
    // A full collection on demand, so that what is measured is what the record holds.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const { refused, refuse } = watch();
    const notes = 'x'.repeat(100 * 1024);
    collect();
    const before = process.memoryUsage().heapUsed;
    // Ids of 40 characters: engines copy a short piece of a string, but keep a longer one a
    // slice of the whole.
    for (let index = 0; index < 1_000; index++) {
      refuse({ ...resultOf(`user-${index}-`.padEnd(40, 'y')), notes });
    }
    collect();
    expect(refused.size.users).toBe(1_000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 2 ** 20);
  });

  it('at most 1,000 users, however short their ids', () => {
    const { refused, refuse } = watch();
    for (let index = 0; index < 3_000; index++) refuse(resultOf(`u${index}`));
    expect(refused.size.users).toBe(1_000);
  });

  it('what is older than the 15 minutes the docs state is forgotten, and is no evidence', async () => {
    const { clock, refused, raised, refuse, recover } = watch();
    refuse(resultOf('alice', 3));
    await clock.advance(WINDOW_MS - 1);
    expect(refused.size.users).toBe(1);
    await clock.advance(2);
    expect(refused.size).toEqual({ users: 0, bytes: 0 });
    recover(resultOf('alice', 3));
    expect(raised.map((alert) => alert.code)).not.toContain('secret_mismatch');
  });

  it('forgetUser drops the user at once', () => {
    const { refused, refuse } = watch();
    refuse(resultOf('alice'));
    refused.forget('alice');
    expect(refused.size).toEqual({ users: 0, bytes: 0 });
  });
});
