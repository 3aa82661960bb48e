import { SECRET_1, SECRET_2, TOKEN_KEY_1 } from './configuration.js';
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
 * Schedules that replay what broke where parts meet, one per case found, written out so
 * that each reads as its story. Every one failed before its fix; `simulate(0, schedule)` runs
 * it with the same engine, invariants and report as a seed.
 */
export const REGRESSIONS: Record<string, Schedule> = {
  /**
   * A rolling change of configuration: instance 1 sets a token key first and starts alice's
   * session; instance 0, still on the previous configuration, sweeps it. It could not open
   * the token and closed the session, silently; the user's webhook then matched nothing.
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
  /**
   * An old signed webhook of alice, replayed once its digest was forgotten, is matched by user
   * to her new session; the service rate-limits the confirming read, so the claim is kept.
   * Instance 0, which could not open the new session's token, delivered the claim as it was.
   */
  'a kept claim is never delivered without the service, on any instance': {
    clockOffsetsMs: [0, 0],
    steps: [
      { at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } },
      { at: 0, kind: 'boot', instance: 1, configuration: { secrets: [SECRET_2, SECRET_1] } },
      ...aliceCompletes(0),
      { at: 60 * MINUTE, kind: 'start-session', session: 1, instance: 1, user: 'alice' },
      { at: 60 * MINUTE + 30 * SECOND, kind: 'poll-fault', fault: 'rate_limited' },
      { at: 61 * MINUTE, kind: 'replay', session: 0, instance: 1 },
      { at: 61 * MINUTE + 10 * SECOND, kind: 'kill', instance: 1 },
      { at: 75 * MINUTE, kind: 'poll-fault', fault: null },
    ],
    handlers: [],
    activeMs: 80 * MINUTE,
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
   * The store fails over to a replica that lags: the last acknowledged successes are gone and
   * their sessions are delivered again. That may happen (it is listed in "Who may run twice");
   * silently, it may not.
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
