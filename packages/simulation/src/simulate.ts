import { createHmac } from 'node:crypto';
import {
  type Client,
  createClient,
  createReceiver,
  type Receiver,
  type VerificationCompletedEvent,
} from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { checkAlarmFixes } from './alarm-fixes.js';
import type { InstanceConfiguration } from './configuration.js';
import { SECRET_1 } from './configuration.js';
import { type InstanceClock, instanceClock } from './instance-clock.js';
import { checkInvariants } from './invariants.js';
import { Ledger } from './ledger.js';
import { seededRandom } from './random.js';
import {
  ACCOUNT,
  describeSchedule,
  generateSchedule,
  type Schedule,
  type Step,
} from './schedule.js';
import { Scheduler } from './scheduler.js';
import { ServiceModel } from './service-model.js';
import { type RealFailover, SimulatedStore } from './simulated-store.js';
import { supersededViolations } from './superseded-invariant.js';

/** What one run came to. */
export interface SimulationReport {
  seed: number;
  violations: string[];
  /** What happened, in order: the same seed gives the same trace. */
  trace: string[];
  /** The schedule, readable. */
  schedule: string[];
  stats: {
    sessions: number;
    delivered: number;
    webhooks: number;
    instances: number;
    /** Results that came after their user had started a newer session: skipped, or seen as such. */
    superseded: number;
  };
}

const T0 = Date.UTC(2030, 0, 1);

/** What a stranger's body naming a user says of her result: no result the service gives. */
const GUESSED_RESULT = {
  event: 'verification.completed',
  status: 'verified',
  // The service's confidences have two decimals.
  confidence: 0.955,
  livenessPassed: true,
  duplicate: false,
  risk: 'low',
  reason: null,
  frontImageUrl: 'https://files.example.test/front.jpg',
};
const MINUTE = 60_000;

/** The Receiver options every simulated instance shares (a schedule may change some). */
const RECEIVER_DEFAULTS = {
  leaseMs: MINUTE,
  sessionLifetimeMs: 30 * MINUTE,
  // Short enough that replays after the window happen within a run.
  replayWindowMs: 20 * MINUTE,
  sweepIntervalMs: 5_000,
};

interface Instance {
  id: number;
  configuration: InstanceConfiguration;
  incarnation: number;
  alive: boolean;
  clock?: InstanceClock;
  receiver?: Receiver;
  /** Its API client, for sessions started at the service and then tracked (`fresh`). */
  client?: Client;
  /** Sessions whose handler runs in this incarnation right now. */
  inflight: Map<string, number>;
}

interface Captured {
  body: Uint8Array;
  signature: string;
}

/** Where a run keeps its records: the simulated store (default), or a real one. */
export interface SimulationOptions {
  /** A real store shared by every instance of the run (the slower mode). */
  store?: Store;
  /** Its replica, for a schedule's `store-failover` on real servers. */
  failover?: RealFailover;
}

/** Runs the system from a seed, or a hand-written schedule, and checks the promises. */
export async function simulate(
  seed: number,
  schedule: Schedule = generateSchedule(seededRandom(seed)),
  options: SimulationOptions = {},
): Promise<SimulationReport> {
  const random = seededRandom(seed ^ 0x5eed);
  const originalRandom = Math.random;
  // Jitter inside the client draws from the seed too.
  Math.random = random.fork().float;
  const ledger = new Ledger();
  const onUnhandled = (reason: unknown) => {
    ledger.unhandled.push(reason instanceof Error ? String(reason.stack) : String(reason));
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    return await run(seed, schedule, ledger, random, options);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    Math.random = originalRandom;
  }
}

async function run(
  seed: number,
  schedule: Schedule,
  ledger: Ledger,
  random: ReturnType<typeof seededRandom>,
  options: SimulationOptions,
): Promise<SimulationReport> {
  const scheduler = new Scheduler(T0);
  const service = new ServiceModel(scheduler, random.fork());
  const store = new SimulatedStore(scheduler, options.store, options.failover);
  const receiverOptions = { ...RECEIVER_DEFAULTS, ...schedule.receiver };
  let serviceSecret = SECRET_1;
  let handlerRuns = 0;
  let webhooks = 0;
  const sessionTokens = new Map<number, string>();
  const tracked = new Set<string>();
  const captured = new Map<number, Captured>();
  const instances: Instance[] = schedule.clockOffsetsMs.map((_, id) => ({
    id,
    configuration: { secrets: [SECRET_1] },
    incarnation: 0,
    alive: false,
    inflight: new Map(),
  }));
  const note = (line: string) => ledger.note(scheduler.now() - T0, line);
  // Each instance's clock offset now: a clock step moves it for the instance's next lives too.
  const offsets = [...schedule.clockOffsetsMs];
  // The account of every session and webhook, where the run serves accounts.
  const onAccount = schedule.accounts ? { account: ACCOUNT } : {};
  let madeUp = 0;

  const kill = (instance: Instance) => {
    if (!instance.alive) return;
    instance.alive = false;
    instance.clock?.halt();
    for (const token of instance.inflight.keys()) ledger.mayRunTwice.add(token);
    instance.inflight.clear();
    note(`instance ${instance.id} dies`);
  };

  const boot = async (instance: Instance) => {
    kill(instance);
    const incarnation = ++instance.incarnation;
    const alive = () => instance.alive && instance.incarnation === incarnation;
    instance.alive = true;
    const clock = instanceClock(
      scheduler,
      offsets[instance.id]!,
      schedule.clockDriftsPpm?.[instance.id] ?? 0,
      T0,
    );
    const { secrets, tokenKeys } = instance.configuration;
    const client = createClient({
      apiKey: service.apiKey,
      baseUrl: service.baseUrl,
      fetch: service.fetchFor(alive),
      clock,
      logger: false,
    });
    const receiver = createReceiver({
      ...(schedule.accounts
        ? {
            accounts: {
              resolve: (id: string) => (id === ACCOUNT ? { secret: secrets, client } : undefined),
              ...schedule.accounts,
            },
            // The keys one account's Receiver seals and opens under: its token keys, then its
            // signing secrets (which open what was sealed before it had keys of its own).
            tokenKeys: [...(tokenKeys ?? []), ...secrets.filter((s) => !tokenKeys?.includes(s))],
          }
        : { secret: secrets, ...(tokenKeys ? { tokenKeys } : {}), client }),
      store: store.viewFor(alive),
      clock,
      // As in production, where no clock is injected: leases on the store's clock.
      storeClock: true,
      logger: false,
      // Runs start up to 30 sessions of three users in minutes: none is refused for it.
      starts: { perUserPerDay: Number.POSITIVE_INFINITY },
      ...receiverOptions,
    });
    receiver.on('verification.completed', async (event) => {
      const behaviour = schedule.handlers[handlerRuns++] ?? 'ok';
      ledger.handlerRuns.push({ at: scheduler.now(), instance: instance.id, behaviour });
      ledger.seen.push({ ...sessionOf(event), at: scheduler.now(), instance: instance.id });
      const token = event.sessionToken ?? `(no token: ${event.id})`;
      instance.inflight.set(token, (instance.inflight.get(token) ?? 0) + 1);
      try {
        if (behaviour === 'slow') await sleep(clock, 2 * MINUTE);
        if (behaviour === 'hang') await sleep(clock, 15 * MINUTE);
        if (behaviour === 'throw') throw new Error('The handler failed (simulated).');
        ledger.commits.push({
          at: scheduler.now(),
          instance: instance.id,
          token: event.sessionToken,
          eventId: event.id,
          confirmed: event.confirmed,
          source: event.source,
          data: event.data,
        });
        note(`instance ${instance.id} handled ${token} (${event.source}, ${event.data.status})`);
        // The success is recorded after this returns: a store that is down loses it.
        if (store.isDown()) ledger.mayRunTwice.add(token);
      } finally {
        const left = (instance.inflight.get(token) ?? 1) - 1;
        if (left > 0) instance.inflight.set(token, left);
        else instance.inflight.delete(token);
      }
    });
    receiver.on('verification.superseded', ({ event }) => {
      const { superseded: _, ...skipped } = sessionOf(event);
      ledger.skipped.push({ ...skipped, at: scheduler.now(), instance: instance.id });
      note(`instance ${instance.id} skipped ${event.sessionToken ?? event.id} (superseded)`);
    });
    receiver.on('verification.expired', (event) => {
      ledger.expired.push({ at: scheduler.now(), token: event.sessionToken, reason: event.reason });
      note(`instance ${instance.id} gave up ${event.sessionToken} (${event.reason})`);
    });
    receiver.on('verification.undeliverable', (event) => {
      ledger.undeliverable.push({ at: scheduler.now(), token: event.event.sessionToken });
    });
    receiver.on('alert', (alert) => {
      ledger.alerts.push({
        at: scheduler.now(),
        instance: instance.id,
        code: alert.code,
        message: alert.message,
      });
      note(`instance ${instance.id} alert ${alert.code}`);
    });
    receiver.on('error', (_error, context) => {
      if (context.stage === 'poll' && context.tokenId !== undefined) {
        ledger.pollErrors.push({
          at: scheduler.now(),
          instance: instance.id,
          tokenId: context.tokenId,
        });
      }
    });
    instance.clock = clock;
    instance.receiver = receiver;
    instance.client = client;
    // Token keys are derived once per process (Web Crypto, off the event loop): before the
    // process takes part, so that the derivation's timing cannot change the run. The store may
    // be down meanwhile; the keys are derived before it is asked.
    await receiver.confirm('warm-up').catch(() => undefined);
    receiver.start();
    note(`instance ${instance.id} boots (${describe(instance.configuration)})`);
  };

  const living = (preferred: number) => {
    const alive = instances.filter((instance) => instance.alive);
    if (alive.length === 0) return undefined;
    return instances[preferred]!.alive ? instances[preferred]! : alive[preferred % alive.length]!;
  };

  const send = async (
    instance: Instance | undefined,
    what: string,
    request: Captured,
    token?: string,
  ) => {
    if (!instance?.receiver) {
      note(`${what}: no instance is up; it is lost on the way`);
      return;
    }
    webhooks += 1;
    const at = scheduler.now();
    const response = await instance.receiver.receive({
      method: 'POST',
      headers: { 'x-webhook-signature': request.signature, 'content-type': 'application/json' },
      body: request.body,
      account: onAccount.account,
    });
    if (token !== undefined) {
      ledger.webhookAnswers.push({
        at,
        instance: instance.id,
        token,
        answer: answerName(response),
      });
    }
    note(`${what} → instance ${instance.id}: ${response.status} ${response.body}`);
  };

  const apply = async (step: Step) => {
    switch (step.kind) {
      case 'boot':
        instances[step.instance]!.configuration = step.configuration;
        return boot(instances[step.instance]!);
      case 'restart': {
        const instance = instances[step.instance]!;
        if (step.configuration) instance.configuration = step.configuration;
        return boot(instance);
      }
      case 'kill':
        return kill(instances[step.instance]!);
      case 'start-session': {
        const instance = living(step.instance);
        if (!instance?.receiver) return;
        const index = step.session;
        const { receiver, client } = instance;
        // A fresh session is started at the service and tracked: a new one whatever else the
        // user has open, as an app asks for explicitly.
        const starting =
          step.fresh && client
            ? client.createSession({ externalUserId: step.user }).then(async ({ token }) => {
                await receiver.track(token, step.user, schedule.accounts ? onAccount : undefined);
                return { token };
              })
            : // Every fourth start may get the user's open session back; the others create one,
              // so a user still has several sessions at once (matched by user id, displaced), as
              // before starts were shared. Drawn from the index: every seed keeps its schedule.
              receiver.startVerification({
                externalUserId: step.user,
                fresh: index % 4 !== 0,
                ...onAccount,
              });
        starting.then(
          ({ token }) => {
            sessionTokens.set(index, token);
            tracked.add(token);
            ledger.users.set(token, step.user);
            // A session handed out again was started when it was first.
            if (!ledger.tracked.has(token)) ledger.tracked.set(token, scheduler.now());
            note(`instance ${instance.id} started session #${index} ${token} for ${step.user}`);
          },
          (error: unknown) =>
            note(`instance ${instance.id} could not start #${index}: ${message(error)}`),
        );
        return;
      }
      case 'complete': {
        const token = sessionTokens.get(step.session);
        if (!token || !service.complete(token)) return;
        const body = new TextEncoder().encode(service.webhookBody(service.sessions.get(token)!));
        const signature = createHmac('sha256', serviceSecret).update(body).digest('hex');
        captured.set(step.session, { body, signature });
        note(`the user completes #${step.session} ${token}`);
        return;
      }
      case 'webhook':
      case 'replay': {
        const request = captured.get(step.session);
        if (!request) return;
        const what = `${step.kind} of #${step.session}`;
        // The service's own sending is checked; a replay may be of a result long closed.
        const token = step.kind === 'webhook' ? sessionTokens.get(step.session) : undefined;
        return send(living(step.instance), what, request, token);
      }
      case 'stranger': {
        // Anyone can reach the webhook route: unsigned, or with a signature of their own.
        const instance = living(step.instance);
        // One naming a user guesses her result: the service's is not known before it is told.
        const body = new TextEncoder().encode(
          step.user === undefined
            ? '{"event":"verification.completed"}'
            : JSON.stringify({ ...GUESSED_RESULT, external_user_id: step.user }),
        );
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (step.signed) headers['x-webhook-signature'] = 'ab'.repeat(32);
        // Where there are accounts, each request names a made-up one of its own.
        const statuses = new Set<number>();
        for (let request = 0; request < (step.flood ?? 1); request++) {
          const account = schedule.accounts ? `made-up-${madeUp++}` : undefined;
          const response = await instance?.receiver?.receive({
            method: 'POST',
            headers,
            body,
            account,
          });
          if (response) statuses.add(response.status);
        }
        if (statuses.size > 0) {
          const what = step.flood ? `${step.flood} strangers' requests` : "a stranger's request";
          note(`${what} → instance ${instance!.id}: ${[...statuses].join(', ')}`);
        }
        return;
      }
      case 'clock-step': {
        const instance = instances[step.instance]!;
        offsets[instance.id]! += step.byMs;
        instance.clock?.step(step.byMs);
        note(`instance ${instance.id}'s clock steps by ${step.byMs / 1000} s`);
        return;
      }
      case 'confirm': {
        const token = sessionTokens.get(step.session);
        const instance = living(step.instance);
        if (!token || !instance?.receiver) return;
        instance.receiver.confirm(token).then(
          (answer) => note(`confirm #${step.session} on instance ${instance.id}: ${answer.status}`),
          (error: unknown) => note(`confirm #${step.session} failed: ${message(error)}`),
        );
        return;
      }
      case 'service-secret':
        serviceSecret = step.secret;
        note('the service signs with a new secret');
        return;
      case 'poll-fault':
        service.setPollFault(step.fault ?? undefined);
        note(`the service ${step.fault ?? 'answers again'}`);
        return;
      case 'store-down':
        store.setDown(step.down);
        if (step.down) {
          for (const instance of instances) {
            for (const token of instance.inflight.keys()) ledger.mayRunTwice.add(token);
          }
        }
        note(step.down ? 'the store is down' : 'the store is back');
        return;
      case 'store-empty':
        store.empty();
        ledger.storeLosses.push({
          at: scheduler.now(),
          since: Number.NEGATIVE_INFINITY,
          kind: 'emptied',
          lost: 'everything',
          witnessed: instances.some((instance) => instance.alive),
        });
        note('the store is emptied');
        return;
      case 'store-failover': {
        const count = await store.failOver(step.lagMs);
        const lost = `${count} ${store.failsOverForReal ? 'bytes of writes' : 'calls'}`;
        if (count > 0) {
          const at = scheduler.now();
          const witnessed = instances.some((instance) => instance.alive);
          ledger.storeLosses.push({ at, since: at - step.lagMs, kind: 'rewound', lost, witnessed });
        }
        note(`the store fails over to a replica ${step.lagMs} ms behind (${lost} lost)`);
        return;
      }
    }
  };

  // Steps run as events, so that their order with everything else follows their times. A
  // boot holds time still until its process is up (see Scheduler.block).
  for (const step of schedule.steps) {
    // On real servers the replica falls behind for real: it is detached `lagMs` before.
    if (step.kind === 'store-failover' && store.failsOverForReal) {
      scheduler.at(T0 + step.at - step.lagMs, () => {
        store.detachReplica().then(
          () => note('the replica stops following the primary'),
          (error: unknown) => note(`the replica could not be detached: ${message(error)}`),
        );
      });
    }
    scheduler.at(T0 + step.at, () => {
      const applying = apply(step).catch((error: unknown) =>
        note(`step failed: ${message(error)}`),
      );
      if (step.kind === 'boot' || step.kind === 'restart' || step.kind === 'store-failover') {
        scheduler.block(applying);
      }
    });
  }
  // The end of faults: everything is up again, and the system is left to settle.
  scheduler.at(T0 + schedule.activeMs, () => {
    service.setPollFault(undefined);
    store.setDown(false);
    for (const instance of instances) {
      if (!instance.alive) scheduler.block(boot(instance));
    }
    note('faults end; the system settles');
  });
  await scheduler.runUntil(T0 + schedule.activeMs + schedule.settleMs);
  for (const instance of instances) kill(instance);
  store.close();
  const violations = checkInvariants(ledger, service, tracked, {
    sessionLifetimeMs: receiverOptions.sessionLifetimeMs,
  });
  violations.push(
    ...supersededViolations(ledger, {
      skip: receiverOptions.supersededResults === 'skip',
      replayWindowMs: receiverOptions.replayWindowMs,
    }),
  );
  violations.push(...checkAlarmFixes(ledger, schedule, T0));
  return {
    seed,
    violations,
    trace: ledger.trace,
    schedule: describeSchedule(schedule),
    stats: {
      sessions: tracked.size,
      delivered: ledger.commits.length,
      webhooks,
      instances: instances.length,
      superseded: ledger.skipped.length + ledger.seen.filter((run) => run.superseded).length,
    },
  };
}

/** What an event says of its session, as the ledger keeps it. */
function sessionOf(event: VerificationCompletedEvent) {
  return {
    user: event.data.external_user_id,
    token: event.sessionToken,
    sessionStartedAt: event.sessionStartedAt?.getTime(),
    superseded: event.superseded,
  };
}

function sleep(clock: InstanceClock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/** The name of a webhook's answer: `untracked`, `duplicate`, `queued`…, or `delivered`. */
function answerName(response: { status: number; body: string }): string {
  try {
    const body = JSON.parse(response.body) as Record<string, unknown>;
    const flag = Object.keys(body).find((name) => name !== 'received' && body[name] === true);
    if (flag) return flag;
    if (typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: named by its status below.
  }
  return response.status === 200 ? 'delivered' : String(response.status);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describe(configuration: InstanceConfiguration): string {
  return `${configuration.secrets.length} secret(s)${configuration.tokenKeys ? `, ${configuration.tokenKeys.length} token key(s)` : ''}`;
}
