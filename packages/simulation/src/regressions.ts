import {
  ROTATIONS,
  type Rotation,
  SECRET_1,
  SECRET_2,
  TOKEN_KEY_1,
  TWO_STEP_ROTATIONS,
} from './configuration.js';
import type { Schedule, Step } from './schedule.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const SETTLE_MS = 3 * 60 * MINUTE;

/** Alice's first session: started on `instance`, completed after a minute, its webhook sent there. */
function aliceCompletes(instance: number): Step[] {
  return [
    { at: 10 * SECOND, kind: 'start-session', session: 0, instance, user: 'alice' },
    { at: 1 * MINUTE, kind: 'complete', session: 0 },
    { at: 1 * MINUTE + 200, kind: 'webhook', session: 0, instance },
  ];
}

/**
 * One rotation rolled out over two instances, stopped half-way at each step: instance 1 runs
 * the step, instance 0 still the one before. At each step a session is started on each
 * instance and completed, and its webhook sent to the other one: the instance that did not
 * start it must find it by its user (else the webhook is `untracked`, and only polling
 * delivers the result), and open its token.
 */
export function halfRolledOut(rotation: Rotation): Schedule {
  const users = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
  const steps: Step[] = [
    { at: 0, kind: 'boot', instance: 0, configuration: rotation.initial },
    { at: 0, kind: 'boot', instance: 1, configuration: rotation.initial },
  ];
  let at = 0;
  let session = 0;
  for (const step of rotation.steps) {
    at += step.waitMs + MINUTE;
    steps.push({ at, kind: 'restart', instance: 1, configuration: step.configuration });
    for (const [starter, receiver] of [
      [1, 0],
      [0, 1],
    ] as const) {
      // Completed before its first poll (a minute after it starts): the webhook decides.
      steps.push({
        at: at + 10 * SECOND,
        kind: 'start-session',
        session,
        instance: starter,
        user: users[session % users.length]!,
      });
      steps.push({ at: at + 40 * SECOND, kind: 'complete', session });
      steps.push({ at: at + 40 * SECOND + 200, kind: 'webhook', session, instance: receiver });
      session += 1;
    }
    at += 2 * MINUTE;
    steps.push({ at, kind: 'restart', instance: 0, configuration: step.configuration });
    if (step.serviceSecret) {
      at += 10 * SECOND;
      steps.push({ at, kind: 'service-secret', secret: step.serviceSecret });
    }
  }
  return {
    clockOffsetsMs: [0, 0],
    steps: steps.sort((a, b) => a.at - b.at),
    handlers: [],
    activeMs: at + 5 * MINUTE,
    settleMs: SETTLE_MS,
  };
}

/**
 * Schedules that replay what broke where parts meet, one per case found, written out so
 * that each reads as its story. Every one failed before its fix; `simulate(0, schedule)` runs
 * it with the same engine, invariants and report as a seed.
 */
export const REGRESSIONS: Record<string, Schedule> = {
  /**
   * Alice fails a first session (#0, instance 0), starts a second (#1, instance 1) and passes
   * it; #1's webhook reaches instance 0. Then #0 is completed and its webhook reaches instance
   * 1, and is sent again after the replay window. With "the newest session decides", no handler
   * may see #0 after #1: its webhook is answered `superseded`, and the replay is a duplicate.
   */
  "a second session passed before the first: the first's late result reaches no handler": {
    clockOffsetsMs: [0, 0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 0, kind: 'boot', instance: 1, configuration: { secrets: [SECRET_1] } },
      { at: 10 * SECOND, kind: 'start-session', session: 0, instance: 0, user: 'alice' },
      {
        at: 40 * SECOND,
        kind: 'start-session',
        session: 1,
        instance: 1,
        user: 'alice',
        fresh: true,
      },
      { at: 1 * MINUTE, kind: 'complete', session: 1 },
      { at: 1 * MINUTE + 200, kind: 'webhook', session: 1, instance: 0 },
      { at: 1 * MINUTE + 30 * SECOND, kind: 'complete', session: 0 },
      { at: 1 * MINUTE + 40 * SECOND, kind: 'webhook', session: 0, instance: 1 },
      { at: 25 * MINUTE, kind: 'replay', session: 0, instance: 0 },
    ],
    handlers: [],
    activeMs: 30 * MINUTE,
    settleMs: SETTLE_MS,
    receiver: { supersededResults: 'skip' },
  },
  /**
   * Each documented rotation, half rolled out at each step. In the order the docs gave before
   * (the new key first at once), an instance still without it found no session an updated
   * instance had keyed: the user's webhook was answered `untracked` (see TWO_STEP_ORDER).
   */
  ...Object.fromEntries(
    ROTATIONS.filter((rotation) => rotation.steps.length > 0).map((rotation) => [
      `every step of the rotation "${rotation.name}", half rolled out, finds the other half's sessions`,
      halfRolledOut(rotation),
    ]),
  ),
  /**
   * Instance 1 lists only the new secret, instance 2 both, instance 0 only the old one (a
   * configuration out of step: a key removed too soon). Alice's session is started on
   * instance 1, so its token is sealed under the new secret alone. Her webhook reaches
   * instance 2, which finds the session; the service rate-limits the confirming read, so the
   * claim is kept with the session, sealed under both secrets. Instances 1 and 2 die. Instance
   * 0 opens the claim but not the token: it delivered the claim as it was
   * (`confirmed: false`); later, it closed the session it could not read. It must leave both
   * to an instance that can: instance 1, back, confirms with the service and delivers.
   */
  'a kept claim is never delivered without the service, on any instance': {
    clockOffsetsMs: [0, 0, 0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 0, kind: 'boot', instance: 1, configuration: { secrets: [SECRET_2] } },
      { at: 0, kind: 'boot', instance: 2, configuration: { secrets: [SECRET_2, SECRET_1] } },
      { at: 0, kind: 'service-secret', secret: SECRET_2 },
      { at: 10 * SECOND, kind: 'start-session', session: 0, instance: 1, user: 'alice' },
      { at: 30 * SECOND, kind: 'poll-fault', fault: 'rate_limited' },
      { at: 1 * MINUTE, kind: 'complete', session: 0 },
      { at: 1 * MINUTE + 200, kind: 'webhook', session: 0, instance: 2 },
      { at: 1 * MINUTE + 10 * SECOND, kind: 'kill', instance: 1 },
      { at: 1 * MINUTE + 10 * SECOND, kind: 'kill', instance: 2 },
      { at: 5 * MINUTE, kind: 'poll-fault', fault: null },
      { at: 10 * MINUTE, kind: 'restart', instance: 1 },
    ],
    handlers: [],
    activeMs: 15 * MINUTE,
    settleMs: SETTLE_MS,
  },
  /**
   * A signing secret rotated in the documented steps, the old one removed one session lifetime
   * after the service signs with the new one. Then alice's first webhook, signed with the old
   * secret, is sent again (refused, rightly), and her new session's result, whose webhook was
   * lost, is recovered by polling. The refused body named alice, so it was taken for the
   * webhook of the result polling recovered, and secret_mismatch was raised on a right setup
   * (seeds 6391 and 7494). The refused body carries an earlier result of hers, not that one.
   */
  'an old-secret webhook sent again after a correct rotation raises no secret_mismatch': {
    clockOffsetsMs: [0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      ...aliceCompletes(0),
      {
        at: 5 * MINUTE,
        kind: 'restart',
        instance: 0,
        configuration: { secrets: [SECRET_1, SECRET_2] },
      },
      {
        at: 10 * MINUTE,
        kind: 'restart',
        instance: 0,
        configuration: { secrets: [SECRET_2, SECRET_1] },
      },
      { at: 11 * MINUTE, kind: 'service-secret', secret: SECRET_2 },
      { at: 42 * MINUTE, kind: 'restart', instance: 0, configuration: { secrets: [SECRET_2] } },
      { at: 45 * MINUTE, kind: 'start-session', session: 1, instance: 0, user: 'alice' },
      // Completed, and its webhook lost: polling recovers it.
      { at: 46 * MINUTE, kind: 'complete', session: 1 },
      { at: 46 * MINUTE + 100, kind: 'replay', session: 0, instance: 0 },
    ],
    handlers: [],
    activeMs: 50 * MINUTE,
    settleMs: SETTLE_MS,
  },
  /**
   * An end user sends one badly signed body naming herself, completes her own session, and
   * opens the return page (`confirm`) before the service's webhook has come: polling
   * recovered a result of a user a refused body had named, and `secret_mismatch` was raised
   * on a right setup. Only a body that said the result polling then told is the service's.
   */
  'a body an end user sends naming herself raises no secret_mismatch': {
    clockOffsetsMs: [0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 10 * SECOND, kind: 'start-session', session: 0, instance: 0, user: 'alice' },
      { at: 30 * SECOND, kind: 'stranger', instance: 0, signed: true, user: 'alice' },
      { at: 40 * SECOND, kind: 'complete', session: 0 },
      { at: 41 * SECOND, kind: 'confirm', session: 0, instance: 0 },
      { at: 50 * SECOND, kind: 'webhook', session: 0, instance: 0 },
    ],
    handlers: [],
    activeMs: 5 * MINUTE,
    settleMs: SETTLE_MS,
  },
  /**
   * Strangers post to made-up account ids, 70 a minute for 8 minutes, on the instance that
   * started Alice's session: each minute they spent the budget of resolver calls, and the ids
   * it let through pushed the real account out of the cache (100 here). Her webhook was then answered
   * `503 account_unavailable`, though this instance had resolved the account itself. An
   * account this instance resolved is resolved whatever strangers spent.
   */
  "strangers' made-up account ids never turn away the webhook of an account this instance resolved":
    {
      accounts: { cacheSize: 100 },
      clockOffsetsMs: [0],
      steps: [
        { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
        { at: 10 * SECOND, kind: 'start-session', session: 0, instance: 0, user: 'alice' },
        ...Array.from(
          { length: 8 },
          (_, minute): Step => ({
            at: (minute + 1) * MINUTE,
            kind: 'stranger',
            instance: 0,
            signed: true,
            flood: 70,
          }),
        ),
        // After the third poll (4 min 10 s) and before the fourth (9 min 10 s): the sweep has
        // not touched the account for minutes.
        { at: 8 * MINUTE + 50 * SECOND, kind: 'complete', session: 0 },
        { at: 8 * MINUTE + 50 * SECOND + 200, kind: 'webhook', session: 0, instance: 0 },
      ],
      handlers: [],
      activeMs: 25 * MINUTE,
      settleMs: SETTLE_MS,
    },
  /**
   * The same kept claim on one instance: the service cannot be reached for 40 minutes, and the
   * old secret is removed after 30 as the rotation allows. The next sweep could not open the
   * token and delivered the claim; a poll error also had no end but the store's own expiry.
   */
  'an outage past the lifetime ends the session, and delivers no claim': {
    clockOffsetsMs: [0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      ...aliceCompletes(0),
      { at: 60 * MINUTE, kind: 'start-session', session: 1, instance: 0, user: 'alice' },
      { at: 60 * MINUTE + 30 * SECOND, kind: 'poll-fault', fault: 'unreachable' },
      { at: 61 * MINUTE, kind: 'replay', session: 0, instance: 0 },
      {
        at: 62 * MINUTE,
        kind: 'restart',
        instance: 0,
        configuration: { secrets: [SECRET_2, SECRET_1] },
      },
      { at: 62 * MINUTE + 10 * SECOND, kind: 'service-secret', secret: SECRET_2 },
      { at: 92 * MINUTE, kind: 'restart', instance: 0, configuration: { secrets: [SECRET_2] } },
      { at: 100 * MINUTE, kind: 'poll-fault', fault: null },
    ],
    handlers: [],
    activeMs: 101 * MINUTE,
    settleMs: SETTLE_MS,
  },
  /**
   * Instance 0's clock runs 70 s ahead; instance 1 delivers alice's result to a handler that
   * takes two minutes. Instance 0 thought the 60 s lease long gone and delivered it too.
   */
  'a clock ahead by more than a lease does not take it over': {
    clockOffsetsMs: [70 * SECOND, 0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 0, kind: 'boot', instance: 1, configuration: { secrets: [SECRET_1] } },
      ...aliceCompletes(1),
    ],
    handlers: ['slow'],
    activeMs: 10 * MINUTE,
    settleMs: SETTLE_MS,
  },
  /**
   * Webhooks are lost on the way and polling recovers the results; meanwhile a stranger posts
   * one request with a signature of their own. That alone raised `secret_mismatch` (failing):
   * one request per instance every 15 minutes could page an operator about a secret that is
   * right.
   */
  "a stranger's badly signed request raises no alarm about the secret": {
    clockOffsetsMs: [0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 10 * SECOND, kind: 'start-session', session: 0, instance: 0, user: 'alice' },
      { at: 20 * SECOND, kind: 'start-session', session: 1, instance: 0, user: 'bob' },
      { at: 1 * MINUTE, kind: 'complete', session: 0 },
      { at: 1 * MINUTE, kind: 'complete', session: 1 },
      { at: 2 * MINUTE, kind: 'stranger', instance: 0, signed: true },
      { at: 5 * MINUTE, kind: 'stranger', instance: 0, signed: true },
    ],
    handlers: [],
    activeMs: 10 * MINUTE,
    settleMs: SETTLE_MS,
  },
  /**
   * Instance 1 delivers alice's result to a handler that takes 15 minutes, renewing its lease;
   * meanwhile NTP steps its wall clock back by 114 s. Its renewals were timed on the wall
   * clock, so they stopped until it caught up again; the lease lapsed and instance 0 delivered
   * the result too. (Found by seed 1418.)
   */
  'a wall clock stepped back does not hold lease renewals back': {
    clockOffsetsMs: [0, 0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 0, kind: 'boot', instance: 1, configuration: { secrets: [SECRET_1] } },
      ...aliceCompletes(1),
      { at: 5 * MINUTE, kind: 'clock-step', instance: 1, byMs: -114 * SECOND },
    ],
    handlers: ['hang'],
    activeMs: 30 * MINUTE,
    settleMs: SETTLE_MS,
  },
};

/**
 * Rotations in the order the docs gave before, the new key first at once: each breaks only the
 * promise that a tracked session's webhook is never answered `untracked` (its result still
 * comes, by polling). Replayed to show that the invariant tells the old order from the new.
 */
export const TWO_STEP_ORDER: Record<string, Schedule> = {
  ...Object.fromEntries(
    TWO_STEP_ROTATIONS.map((rotation) => [
      `the rotation "${rotation.name}", half rolled out`,
      halfRolledOut(rotation),
    ]),
  ),
  /**
   * A rolling change of configuration: instance 1 sets a token key first and starts alice's
   * session; instance 0, still on the previous configuration, sweeps it. It could not open
   * the token and closed the session, silently (fixed: tokens are sealed under every key, and
   * what an instance cannot open it leaves). The user's webhook still matches nothing there:
   * the new key hashed her id, which is why the docs now add a key last first.
   */
  'rolling rotation: the previous step opens what the next one sealed': {
    clockOffsetsMs: [0, 0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      {
        at: 0,
        kind: 'boot',
        instance: 1,
        configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] },
      },
      { at: 10 * SECOND, kind: 'start-session', session: 0, instance: 1, user: 'alice' },
      { at: 20 * SECOND, kind: 'kill', instance: 1 },
      { at: 5 * MINUTE, kind: 'complete', session: 0 },
      { at: 5 * MINUTE + 200, kind: 'webhook', session: 0, instance: 0 },
      { at: 10 * MINUTE, kind: 'restart', instance: 1 },
    ],
    handlers: [],
    activeMs: 15 * MINUTE,
    settleMs: SETTLE_MS,
  },
};

/**
 * Schedules whose promise only a real store keeps: run on real servers, with a replica to
 * fail over to (test/real-stores.test.ts). Each failed before its fix there.
 */
export const REAL_STORE_REGRESSIONS: Record<string, Schedule> = {
  /**
   * The store fails over to a replica that lags: the last acknowledged successes are gone and
   * their sessions are delivered again. That may happen (it is listed in "Who may run twice");
   * silently, it may not. Only a real store can tell (the simulated one models the telling),
   * so this runs on a real Redis primary and replica, where RedisStore's write count must.
   */
  'a failover that lost successes is told': {
    clockOffsetsMs: [0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      ...aliceCompletes(0),
      { at: 1 * MINUTE + 2 * SECOND, kind: 'store-failover', lagMs: 5 * SECOND },
    ],
    handlers: [],
    activeMs: 5 * MINUTE,
    settleMs: SETTLE_MS,
  },
};
