import type { Ledger } from './ledger.js';
import type { Schedule, Step } from './schedule.js';

/**
 * No alarm names a wrong fix: each alarm an instance raised must be one whose fix fits what the
 * schedule really did around it (within the alarms' window before it). A false alarm sends an
 * operator to fix what is not broken, while the real cause, told by another alarm or none,
 * goes on. Alarms not listed here are not judged.
 */
export function checkAlarmFixes(ledger: Ledger, schedule: Schedule, startedAt: number): string[] {
  const facts = new RunFacts(schedule, ledger, startedAt);
  const violations: string[] = [];
  for (const alert of ledger.alerts) {
    const judge = FIXES[alert.code];
    if (!judge) continue;
    const at = alert.at - startedAt;
    const wrong = judge(facts, alert.instance, at, alert.message);
    if (wrong !== undefined) {
      violations.push(
        `wrong fix: instance ${alert.instance} raised ${alert.code} at ${(at / 1000).toFixed(1)} s, but ${wrong}`,
      );
    }
  }
  return violations;
}

/** The alarms' window: what an alarm counts happened this long before it at most. */
const WINDOW_MS = 15 * 60_000;
/** `maxClockSkewMs`, as the simulation leaves it. */
const MAX_SKEW_MS = 10_000;
/** What a measured offset may be off by: half a round trip, the drift since the reading. */
const SKEW_TOLERANCE_MS = 1_000;
/** Answers by which a webhook was refused, not accepted: the service's to send again. */
const REFUSED_ANSWERS = new Set([
  'store_unavailable',
  'signature_invalid',
  'internal_error',
  'account_unavailable',
]);
const accepted = (answer: string) => !REFUSED_ANSWERS.has(answer) && !/^\d+$/.test(answer);

/** How long a `hang` handler holds what runs it, and a `slow` one (simulate.ts). */
const HELD_MS = { hang: 15 * 60_000, slow: 2 * 60_000 } as const;

/**
 * Each alarm's fix, and when it fits: `undefined` when it does, else what the run did instead.
 * Times are in ms from the run's start.
 */
const FIXES: Record<
  string,
  (facts: RunFacts, instance: number, at: number, message: string) => string | undefined
> = {
  // "Copy the signing secret from Settings": only when this instance lacks the one the
  // service signs with.
  secret_mismatch: (facts, instance, at) =>
    facts.secretsOf(instance, at).includes(facts.serviceSecretAt(at))
      ? 'the instance lists the secret the service signs with'
      : undefined,
  // "Mount verificationWebhook() before any body parser": the simulation mounts none.
  raw_body_unavailable: () => 'no body parser runs before the receiver in the simulation',
  // "Check callback_url": only when webhooks really were not delivered: a result this
  // instance recovered by polling in the window had no webhook accepted by any instance.
  webhooks_missing: (facts, instance, at) =>
    facts.polledWithoutWebhook(instance, at - WINDOW_MS, at) > 0
      ? undefined
      : 'every result it recovered by polling in the window had its webhook accepted',
  // Its message names one of four causes, each with its fix (backlog-check.ts).
  backlog_growing: (facts, instance, at, message) => {
    const from = at - WINDOW_MS;
    const storeDown = facts.overlaps('store-down', from, at);
    const apiFailed = facts.overlaps('poll-fault', from, at);
    const held = facts.heldHandlers(instance, from, at);
    const lost = facts.storeLostWithin(from, at);
    // "Raise sweepBatchSize or sweepConcurrency": only for lack of throughput, not because
    // the store failed, the service's API failed, or a handler held the sweep.
    if (message.includes('Raise sweepBatchSize')) {
      if (storeDown) return 'the store was down in the window';
      if (apiFailed) return "the service's API failed in the window (poll faults)";
      if (held > 0) return `${held} handler run(s) that take minutes held its sweeps`;
      if (lost) return 'the store lost writes in the window';
      return undefined;
    }
    // "Find the handler that runs long": a handler held the sweep, or polls waited on 429s.
    if (message.includes('Find the handler that runs long')) {
      return held > 0 || apiFailed ? undefined : 'no handler ran long and the API answered';
    }
    // "That alarm says what to fix": the store lost writes.
    if (message.includes('after the store lost writes')) {
      return lost ? undefined : 'the store lost nothing';
    }
    // "Check the store's connection".
    if (message.includes("Check the store's connection")) {
      return storeDown ? undefined : 'the store was up throughout the window';
    }
    // "Call receiver.start()": every simulated instance sweeps from start().
    return 'every instance sweeps from start()';
  },
  // "Check the service's status, the account's rate limit": only when its API failed.
  api_failing: (facts, _instance, at) =>
    facts.overlaps('poll-fault', at - WINDOW_MS, at)
      ? undefined
      : "the service's API answered throughout the window",
  // "Check the store's connection": only when the store failed.
  store_unavailable: (facts, _instance, at) =>
    facts.overlaps('store-down', at - WINDOW_MS, at) ? undefined : 'the store never failed',
  // "Synchronise the process's clock": only when it is off.
  clock_skew: (facts, instance, at) => {
    const offset = facts.clockOffsetOf(instance, at);
    return Math.abs(offset) > MAX_SKEW_MS - SKEW_TOLERANCE_MS
      ? undefined
      : `its clock was ${(offset / 1000).toFixed(1)} s off, within maxClockSkewMs`;
  },
};

/** What a run's schedule and ledger say happened when: configurations, faults, webhooks. */
class RunFacts {
  private readonly steps: readonly Step[];

  constructor(
    private readonly schedule: Schedule,
    private readonly ledger: Ledger,
    /** When the run started on the ledger's clock: the schedule counts from there. */
    private readonly startedAt: number,
  ) {
    this.steps = schedule.steps;
  }

  /** The secrets `instance` ran with at `at`. */
  secretsOf(instance: number, at: number): string[] {
    let secrets: string[] = [];
    for (const step of this.steps) {
      if (step.at > at) break;
      if ((step.kind === 'boot' || step.kind === 'restart') && step.instance === instance) {
        if (step.configuration) secrets = step.configuration.secrets;
      }
    }
    return secrets;
  }

  /** The secret the service signed with at `at`. */
  serviceSecretAt(at: number): string {
    let secret = this.secretsOf(0, 0)[0] ?? '';
    for (const step of this.steps) {
      if (step.at > at) break;
      if (step.kind === 'service-secret') secret = step.secret;
    }
    return secret;
  }

  /** Whether a window of `kind` (store-down, poll-fault) was open at some time in [from, to]. */
  overlaps(kind: 'store-down' | 'poll-fault', from: number, to: number): boolean {
    let openedAt: number | undefined;
    for (const step of this.steps) {
      if (step.kind !== kind) continue;
      const opens = step.kind === 'store-down' ? step.down : step.fault !== null;
      if (opens) openedAt ??= step.at;
      else if (openedAt !== undefined) {
        if (openedAt <= to && step.at >= from) return true;
        openedAt = undefined;
      }
    }
    return openedAt !== undefined && openedAt <= to && this.schedule.activeMs >= from;
  }

  /** Whether the store was emptied or failed over at some time in [from, to]. */
  storeLostWithin(from: number, to: number): boolean {
    return this.steps.some(
      (step) =>
        (step.kind === 'store-empty' || step.kind === 'store-failover') &&
        step.at >= from &&
        step.at <= to,
    );
  }

  /**
   * Results `instance` delivered by polling in [from, to] whose webhook no instance had
   * accepted before: none was sent, it was lost, or it was refused (a store down: `503`).
   */
  polledWithoutWebhook(instance: number, from: number, to: number): number {
    return this.ledger.commits.filter((commit) => {
      const at = commit.at - this.startedAt;
      if (commit.instance !== instance || commit.source !== 'poll' || at < from || at > to) {
        return false;
      }
      return !this.ledger.webhookAnswers.some(
        (answer) =>
          answer.token === commit.token && answer.at <= commit.at && accepted(answer.answer),
      );
    }).length;
  }

  /** Handler runs on `instance` that take minutes and ran at some time in [from, to]. */
  heldHandlers(instance: number, from: number, to: number): number {
    return this.ledger.handlerRuns.filter((run) => {
      if (run.instance !== instance || run.behaviour === 'ok' || run.behaviour === 'throw') {
        return false;
      }
      const at = run.at - this.startedAt;
      return at <= to && at + HELD_MS[run.behaviour] >= from;
    }).length;
  }

  /** `instance`'s clock offset from true time at `at`: its start, its drift, its steps. */
  clockOffsetOf(instance: number, at: number): number {
    let offset = this.schedule.clockOffsetsMs[instance] ?? 0;
    for (const step of this.steps) {
      if (step.at > at) break;
      if (step.kind === 'clock-step' && step.instance === instance) offset += step.byMs;
    }
    const drift = this.schedule.clockDriftsPpm?.[instance] ?? 0;
    return offset + (at * drift) / 1e6;
  }
}
