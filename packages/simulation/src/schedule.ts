import {
  describeConfiguration,
  type InstanceConfiguration,
  nameOf,
  ROTATIONS,
  type Rotation,
} from './configuration.js';
import type { Random } from './random.js';
import type { PollFault } from './service-model.js';

/** How a handler run behaves: it succeeds, throws, or takes its time. */
export type HandlerBehaviour = 'ok' | 'throw' | 'slow' | 'hang';

/**
 * One step of a run, at a time in ms from its start. Sessions are numbered by their
 * `start-session` step; a step about a session that could not be started is skipped.
 */
export type Step =
  | { at: number; kind: 'boot'; instance: number; configuration: InstanceConfiguration }
  | {
      at: number;
      kind: 'start-session';
      session: number;
      instance: number;
      user: string;
      /** Started at the service and tracked: a new session whatever the user has open. */
      fresh?: true;
    }
  | { at: number; kind: 'complete'; session: number }
  | { at: number; kind: 'webhook'; session: number; instance: number }
  | { at: number; kind: 'replay'; session: number; instance: number }
  | {
      at: number;
      kind: 'stranger';
      instance: number;
      signed: boolean;
      /** Requests sent at once, each naming a made-up account id of its own (`accounts`). */
      flood?: number;
      /** The user the body names, as an end user who sends one naming herself would. */
      user?: string;
    }
  | { at: number; kind: 'clock-step'; instance: number; byMs: number }
  | { at: number; kind: 'confirm'; session: number; instance: number }
  | { at: number; kind: 'kill'; instance: number }
  | { at: number; kind: 'restart'; instance: number; configuration?: InstanceConfiguration }
  | { at: number; kind: 'service-secret'; secret: string }
  | { at: number; kind: 'poll-fault'; fault: PollFault | null }
  | { at: number; kind: 'store-down'; down: boolean }
  | { at: number; kind: 'store-empty' }
  | { at: number; kind: 'store-failover'; lagMs: number };

/** Everything a run is: its instances' clocks, its steps, and how handlers behave. */
export interface Schedule {
  /** Each instance's clock offset from true time, in ms, at the start. */
  clockOffsetsMs: number[];
  /** How fast each instance's clock runs off true time, in ppm (none: exact). */
  clockDriftsPpm?: number[];
  steps: Step[];
  /** Handler runs in the order they happen; runs past the end of the list succeed. */
  handlers: HandlerBehaviour[];
  /** When new work stops and the system is left to settle; invariants are checked after. */
  activeMs: number;
  settleMs: number;
  /** Receiver options that differ from the simulation's defaults. */
  receiver?: {
    leaseMs?: number;
    replayWindowMs?: number;
    sweepIntervalMs?: number;
    /** "The newest session decides": results of a user's older session are skipped. */
    supersededResults?: 'skip';
  };
  /**
   * The Receivers serve accounts through a resolver (`accounts: { resolve }`) that knows one,
   * `ACCOUNT`, and never fails: its sessions are started with it, its webhooks arrive on its path, and
   * strangers post to made-up ids (see `strangerFloods`). Its options that differ from the
   * defaults.
   */
  accounts?: { cacheSize?: number };
}

const MINUTE = 60_000;
/** The one account the resolver knows, when a run serves accounts (`Schedule.accounts`). */
export const ACCOUNT = 'acme';
const USERS = ['alice', 'bob', 'carol'] as const;

/**
 * Draws a run from a seed: instances, sessions, webhooks, replays, faults, a rotation. Without
 * `storeLoss` (a real store), the store is never emptied nor failed over.
 */
export function generateSchedule(random: Random, { storeLoss = true } = {}): Schedule {
  const instances = random.int(1, 3);
  const activeMs = random.int(40, 90) * MINUTE;
  const rotation = random.pick(ROTATIONS);
  const steps: Step[] = [];
  const clockOffsetsMs = Array.from({ length: instances }, () =>
    random.chance(0.4) ? random.int(-90, 90) * 1000 : random.int(-500, 500),
  );
  for (let instance = 0; instance < instances; instance++) {
    steps.push({ at: 0, kind: 'boot', instance, configuration: rotation.initial });
  }
  const sessions = random.int(5, 30);
  for (let session = 0; session < sessions; session++) {
    const startedAt = random.int(1, activeMs - 10 * MINUTE);
    steps.push({
      at: startedAt,
      kind: 'start-session',
      session,
      instance: random.int(0, instances - 1),
      user: random.pick(USERS),
    });
    if (random.chance(0.15)) continue; // abandoned: never completed
    const completedAt = startedAt + random.int(20_000, 14 * MINUTE);
    steps.push({ at: completedAt, kind: 'complete', session });
    const copies = random.chance(0.2) ? 0 : random.chance(0.2) ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      steps.push({
        at: completedAt + (random.chance(0.2) ? random.int(1, 180_000) : random.int(1, 500)),
        kind: 'webhook',
        session,
        instance: random.int(0, instances - 1),
      });
    }
    if (random.chance(0.3)) {
      steps.push({
        at: completedAt + random.int(1_000, 90 * MINUTE),
        kind: 'replay',
        session,
        instance: random.int(0, instances - 1),
      });
    }
    if (random.chance(0.3)) {
      steps.push({
        at: completedAt + random.int(100, 10_000),
        kind: 'confirm',
        session,
        instance: random.int(0, instances - 1),
      });
    }
  }
  for (let stranger = random.int(0, 3); stranger > 0; stranger--) {
    steps.push({
      at: random.int(1, activeMs),
      kind: 'stranger',
      instance: random.int(0, instances - 1),
      signed: random.chance(0.5),
    });
  }
  addWindows(random, steps, activeMs, random.int(0, 2), (at, on) =>
    on
      ? { at, kind: 'poll-fault', fault: random.pick(['rate_limited', 'unreachable'] as const) }
      : { at, kind: 'poll-fault', fault: null },
  );
  addWindows(random, steps, activeMs, random.int(0, 2), (at, down) => ({
    at,
    kind: 'store-down',
    down,
  }));
  for (let kill = random.int(0, 3); kill > 0; kill--) {
    const instance = random.int(0, instances - 1);
    const at = random.int(1, activeMs);
    steps.push({ at, kind: 'kill', instance });
    steps.push({ at: at + random.int(0, 3 * MINUTE), kind: 'restart', instance });
  }
  // A clock stepped by NTP, or a VM paused and resumed: an instance's offset jumps.
  if (random.chance(0.2)) {
    steps.push({
      at: random.int(1, activeMs),
      kind: 'clock-step',
      instance: random.int(0, instances - 1),
      byMs: random.int(-120, 120) * 1000,
    });
  }
  if (random.chance(0.05) && storeLoss) {
    steps.push({ at: random.int(1, activeMs), kind: 'store-empty' });
  }
  if (random.chance(0.1) && storeLoss) {
    steps.push({
      at: random.int(1, activeMs),
      kind: 'store-failover',
      lagMs: random.int(100, 5_000),
    });
  }
  rollOut(random, steps, rotation, instances, activeMs);
  const handlers = Array.from({ length: 400 }, () =>
    random.chance(0.85)
      ? 'ok'
      : random.pick(['throw', 'throw', 'slow', 'hang'] as const satisfies HandlerBehaviour[]),
  );
  // A clock without NTP drifts: up to 0.2% here (7 s an hour), far more than a real crystal,
  // so that a run of a few hours moves it by as much as the offsets above.
  const clockDriftsPpm = Array.from({ length: instances }, () =>
    random.chance(0.3) ? random.int(-2_000, 2_000) : 0,
  );
  // Drawn last, so that the runs drawn before accounts were simulated stay as they were.
  const accounts = random.chance(0.3);
  if (accounts) steps.push(...strangerFloods(random, instances, activeMs));
  // Drawn after accounts, for the same reason: a user's second session passed before the first.
  steps.push(...secondSessionsFirst(random, sessions, instances, activeMs));
  const skip = random.chance(0.5);
  return {
    ...(skip ? { receiver: { supersededResults: 'skip' as const } } : {}),
    ...(accounts ? { accounts: {} } : {}),
    clockOffsetsMs,
    ...(clockDriftsPpm.some((drift) => drift !== 0) ? { clockDriftsPpm } : {}),
    steps: steps.sort((a, b) => a.at - b.at),
    handlers,
    activeMs,
    settleMs: 4 * 60 * MINUTE,
  };
}

/**
 * Users who start a second session and complete it before the first, whose result then comes
 * late: its webhook held back (or lost, for the poll to find), its return page confirmed, its
 * webhook replayed. Numbered after the `sessions` drawn before.
 */
function secondSessionsFirst(
  random: Random,
  sessions: number,
  instances: number,
  activeMs: number,
): Step[] {
  const steps: Step[] = [];
  const anyInstance = () => random.int(0, instances - 1);
  for (let pair = random.int(1, 4), session = sessions; pair > 0; pair--, session += 2) {
    const user = random.pick(USERS);
    const first = random.int(1, activeMs - 20 * MINUTE);
    const second = first + random.int(5_000, 4 * MINUTE);
    steps.push({ at: first, kind: 'start-session', session, instance: anyInstance(), user });
    // The second is a new session explicitly, never the first one reused.
    steps.push({
      at: second,
      kind: 'start-session',
      session: session + 1,
      instance: anyInstance(),
      user,
      fresh: true,
    });
    const secondDone = second + random.int(20_000, 3 * MINUTE);
    steps.push({ at: secondDone, kind: 'complete', session: session + 1 });
    steps.push({
      at: secondDone + random.int(1, 2_000),
      kind: 'webhook',
      session: session + 1,
      instance: anyInstance(),
    });
    // The first is completed after the second (or just before, its webhook held back longer).
    const firstDone = secondDone + random.int(-10_000, 5 * MINUTE);
    steps.push({ at: firstDone, kind: 'complete', session });
    if (random.chance(0.75)) {
      const late = Math.max(firstDone, secondDone) + random.int(1_000, 6 * MINUTE);
      steps.push({ at: late, kind: 'webhook', session, instance: anyInstance() });
    }
    if (random.chance(0.3)) {
      steps.push({
        at: firstDone + random.int(100, 10_000),
        kind: 'confirm',
        session,
        instance: anyInstance(),
      });
    }
    if (random.chance(0.2)) {
      steps.push({
        at: firstDone + random.int(10 * MINUTE, 40 * MINUTE),
        kind: 'replay',
        session,
        instance: anyInstance(),
      });
    }
  }
  return steps;
}

/**
 * Strangers posting to made-up account ids, more at once than `maxResolvesPerMinute` (60)
 * allows, now and then for minutes on end: what must never turn away the real account's
 * webhooks.
 */
function strangerFloods(random: Random, instances: number, activeMs: number): Step[] {
  const steps: Step[] = [];
  for (let flood = random.int(1, 3); flood > 0; flood--) {
    const instance = random.int(0, instances - 1);
    let at = random.int(1, activeMs - MINUTE);
    for (let minute = random.int(1, 5); minute > 0; minute--) {
      steps.push({
        at,
        kind: 'stranger',
        instance,
        signed: random.chance(0.5),
        flood: random.int(30, 120),
      });
      at += random.int(20_000, MINUTE);
    }
  }
  return steps;
}

/** `count` windows within the active time: a step to begin each and one to end it. */
function addWindows(
  random: Random,
  steps: Step[],
  activeMs: number,
  count: number,
  step: (at: number, begins: boolean) => Step,
): void {
  for (let window = 0; window < count; window++) {
    const begins = random.int(1, activeMs - MINUTE);
    steps.push(step(begins, true));
    steps.push(step(begins + random.int(5_000, 8 * MINUTE), false));
  }
}

/** Each step of the rotation, one instance at a time, as an operator rolls it out. */
function rollOut(
  random: Random,
  steps: Step[],
  rotation: Rotation,
  instances: number,
  activeMs: number,
): void {
  let at = random.int(1, activeMs / 3);
  for (const step of rotation.steps) {
    at += step.waitMs;
    for (let instance = 0; instance < instances; instance++) {
      // An operator may take a while between instances: sessions started on one already
      // updated complete, and their webhooks reach one that is not yet.
      at += random.int(10_000, 20 * MINUTE);
      steps.push({ at, kind: 'restart', instance, configuration: step.configuration });
    }
    // The service's Settings change once every instance runs the step.
    if (step.serviceSecret) {
      at += random.int(1_000, MINUTE);
      steps.push({ at, kind: 'service-secret', secret: step.serviceSecret });
    }
  }
}

/** The schedule as lines a person can read, to replay and to reason about a failure. */
export function describeSchedule(schedule: Schedule): string[] {
  const time = (ms: number) => `${(ms / 1000).toFixed(1).padStart(8)} s`;
  const lines = [`clock offsets (ms): ${schedule.clockOffsetsMs.join(', ')}`];
  if (schedule.clockDriftsPpm)
    lines.push(`clock drifts (ppm): ${schedule.clockDriftsPpm.join(', ')}`);
  // Handler runs are numbered in the order they happen; the rest succeed.
  const handlers = schedule.handlers.flatMap((behaviour, run) =>
    behaviour === 'ok' ? [] : [`${behaviour}@${run}`],
  );
  lines.push(`handler runs that do not succeed at once: ${handlers.join(' ') || 'none'}`);
  if (schedule.receiver && Object.keys(schedule.receiver).length > 0) {
    const options = Object.entries(schedule.receiver).map(([name, value]) => `${name}=${value}`);
    lines.push(`receiver options: ${options.join(' ')}`);
  }
  if (schedule.accounts) {
    const options = Object.entries(schedule.accounts).map(([name, value]) => ` ${name}=${value}`);
    lines.push(`accounts: a resolver that knows one account${options.join('')}`);
  }
  lines.push(`active ${schedule.activeMs / 1000} s, then ${schedule.settleMs / 1000} s to settle`);
  for (const step of schedule.steps) {
    const { at, kind, ...rest } = step;
    const detail = Object.entries(rest)
      .map(([name, value]) =>
        name === 'configuration'
          ? describeConfiguration(value as InstanceConfiguration)
          : name === 'secret'
            ? `secret=${nameOf(value as string)}`
            : `${name}=${String(value)}`,
      )
      .join(' ');
    lines.push(`${time(at)}  ${kind} ${detail}`);
  }
  return lines;
}
