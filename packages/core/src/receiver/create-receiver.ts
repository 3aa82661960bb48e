import { accountScope } from '../accounts/account-scope.js';
import { FixedDelayTimers } from '../base/clock/fixed-delay-timers.js';
import { createStoreTime } from '../base/clock/store-time.js';
import { ConfigurationError } from '../base/errors.js';
import { checkExternalUserId } from '../client/external-user-id.js';
import type { CreateSessionParams } from '../client/index.js';
import { type SweepReport, sweep } from '../delivery/sweep.js';
import {
  ACCOUNT_ATTRIBUTE,
  type ReceiverSpanAttributes,
} from '../operations/telemetry/receiver-telemetry.js';
import {
  isTransactional,
  type Store,
  type StoreBacklog,
  type TransactionOf,
} from '../store/store.js';
import { StoreAlarm } from '../store/store-alarm.js';
import {
  type ConfirmedSession,
  type ConfirmOptions,
  createConfirmSession,
} from './results/confirm-session.js';
import { SessionStarts, type StartedVerification } from './starts/session-starts.js';

export type { ConfirmedSession, ConfirmOptions, ForgetUserScope, ForgottenUser };

import { createDeadLetters, type DeadLetters } from '../delivery/dead-letters.js';
import type {
  ReceiverEventMap,
  ReceiverEventName,
  VerificationCompletedEvent,
} from '../delivery/events.js';
import { type HandlerOptions, HandlerRegistry } from '../delivery/handler-registry.js';
import { requireClient } from '../delivery/require-client.js';
import { ActivityWindow } from '../operations/activity-window.js';
import { AccountAlarms, ALARM_KINDS, Alarms, type ReceiverAlert } from '../operations/alarms.js';
import { BACKLOG_CHECK_EVERY_MS, checkBacklog } from '../operations/backlog-check.js';
import { type ForgetUserScope, type ForgottenUser, forgetUser } from '../operations/forget-user.js';
import { type ReceiverHealth, readHealth } from '../operations/health.js';
import { RefusedBodies } from '../operations/refused-bodies.js';
import { SlowStoreCalls } from '../operations/slow-store-calls.js';
import { SweepProgress } from '../operations/sweep-progress.js';
import { createOwnerFactory, type ReceiverContext } from './context.js';
import { type ReceiverOptions, resolveReceiverOptions } from './options.js';
import {
  reportStoreAlarm,
  reportStoreAlarms,
  type StoreAlarmContext,
} from './report-store-alarms.js';
import {
  type WaitedResult,
  type WaitForResultOptions,
  waitForResult,
} from './results/wait-for-result.js';
import type { ReceiverResponse } from './webhook/answers.js';
import { type Decided, WEBHOOK_ANSWERS } from './webhook/answers.js';
import { decideAnswer, type WebhookRequest } from './webhook/receive-webhook.js';
import { writeAnswer } from './webhook/write-answer.js';

/** What `startVerification` takes: the session's parameters, and its account where there are several. */
export interface StartVerificationParams extends CreateSessionParams {
  /**
   * On a Receiver of several accounts (required there): the account to start the session
   * with. Its API key creates the session; its webhook and its polls are that account's.
   */
  account?: string;
  /**
   * What the session is for. Starts of the same user and purpose share one open session: a
   * double click, a client's retry or a second tab get the same `verifyUrl` back, and one
   * `POST /v1/verify` is made. Default `''`: every start of a user shares one. Name purposes
   * when one user may need two verifications at once (`'signup'`, `'payout'`), or pass your
   * client's idempotency key. Kept in the store only as a keyed hash.
   */
  purpose?: string;
  /**
   * `true`: create a new session even when one of this user and purpose is open (counted
   * against the day's limits). The open one stays valid until it completes or expires.
   */
  fresh?: boolean;
}

/** Options of `receiver.track()`. */
export interface TrackOptions {
  /** On a Receiver of several accounts (required there): the account the session is of. */
  account?: string;
}

/** Options of `receiver.health()`. */
export interface HealthOptions {
  /**
   * On a Receiver of several accounts: the health of one account, judged on its own requests
   * and results (its alarms, counts and last webhook); `store` and `ready` are the Receiver's.
   */
  account?: string;
}

/** A started verification: send only `verifyUrl` to the browser. */
/** Receives webhooks, tracks sessions, polls for missed results and delivers each one once. */
export interface Receiver<Transaction = never> {
  /** Largest accepted body; adapters stop reading past it. */
  readonly maxBodyBytes: number;
  /**
   * Registers a handler. `verification.completed` handlers may pass
   * `{ transactional: true }` on a transactional store (`PostgresStore`) to run inside its
   * transaction, with `context.transaction`.
   *
   * @example
   * receiver.on('verification.completed', async (event, { transaction }) => {
   *   await transaction.query('update users set verified = $1 where id = $2', [
   *     event.data.status === 'verified',
   *     event.data.external_user_id,
   *   ]);
   * }, { transactional: true });
   */
  on(
    name: 'verification.completed',
    handler: (
      event: VerificationCompletedEvent,
      context: { transaction: Transaction },
    ) => void | Promise<void>,
    options: HandlerOptions & { transactional: true },
  ): this;
  on<Name extends ReceiverEventName>(
    name: Name,
    handler: ReceiverEventMap<Transaction>[Name],
    options?: Name extends 'verification.completed' ? HandlerOptions : never,
  ): this;
  off<Name extends ReceiverEventName>(
    name: Name,
    handler: ReceiverEventMap<Transaction>[Name],
  ): this;
  /**
   * Handles one webhook request given as its exact raw bytes, and says what to answer.
   * Never throws: every failure is an answer (see docs/troubleshooting.md).
   */
  receive(request: WebhookRequest): Promise<ReceiverResponse>;
  /**
   * Creates a session (`POST /v1/verify`) and tracks it until its result is delivered, or
   * hands out again the user's open session for the same `purpose` (`reused: true`), so a
   * retry never starts a second verification, on any instance sharing the store. Rejects
   * with `StartLimitError` when the user or account started as many sessions today as
   * `starts` allows, before anything is sent.
   *
   * @example
   * const { verifyUrl } = await receiver.startVerification({ externalUserId: user.id });
   * // A Receiver of several accounts: the account the session is started with.
   * await receiver.startVerification({ externalUserId: user.id, account: 'acme' });
   */
  startVerification(params: StartVerificationParams): Promise<StartedVerification>;
  /** Tracks a session created elsewhere, so a missed webhook is polled for. */
  track(token: string, externalUserId: string, options?: TrackOptions): Promise<void>;
  /**
   * The session's authoritative state, for the page the browser returns to from the hosted
   * page: the redirect is never the result. A completed result of a tracked session is
   * delivered to handlers (once) before this resolves.
   *
   * Safe on a public route: a token this Receiver does not track is `unknown` without a
   * request to the service; concurrent calls for one token share one
   * `GET /v1/sessions/:token`, which goes after the Tracker's own reads; while the service
   * rate-limits the key it rejects at once with `RateLimitError` (`retryAfterMs`) instead
   * of holding the request.
   */
  confirm(token: string, options?: ConfirmOptions): Promise<ConfirmedSession>;
  /**
   * Waits for the session's result: resolves as soon as any instance sharing the store has
   * delivered it (webhook, poll or `confirm()`: the handlers succeeded), with
   * `{ state: 'completed', result }`; with `expired` or `failed` when the session ended
   * otherwise; with `pending` once `timeoutMs` (30 s) passed; with `unknown` for a token
   * this Receiver's store does not track. It reads the store, never the service: when the
   * store says a record of this token closed (`Store.watchClosed`: Redis pub/sub, PostgreSQL
   * LISTEN/NOTIFY, this process on MemoryStore), and every few seconds besides. For a return page that shows
   * the result the moment it is known (see `resultEvents` for Server-Sent Events).
   *
   * @example
   * const outcome = await receiver.waitForResult(token, { timeoutMs: 20_000 });
   * if (outcome.state === 'completed') show(outcome.result.status);
   */
  waitForResult(token: string, options?: WaitForResultOptions): Promise<WaitedResult>;
  /**
   * What the Receiver saw over the last 15 minutes, and whether it is `ok`, `degraded` or
   * `failing`, with the alarms that say why: JSON a health endpoint can serve. Whether this
   * instance can serve at all is `ready` (its store answered): answer a load balancer's
   * probe by it, never by `status`, which reports faults of the setup every instance shares.
   *
   * @example
   * app.get('/health/verification', async (_req, res) => {
   *   const health = await receiver.health();
   *   res.status(health.ready ? 200 : 503).json(health);
   * });
   */
  health(options?: HealthOptions): Promise<ReceiverHealth>;
  /**
   * Results given up after `maxDeliveryAttempts` failed handler runs: list them, deliver
   * them again once the handler is fixed (exactly once, by the next sweep), or discard them.
   *
   * @example
   * const { deadLetters } = await receiver.deadLetters.list();
   * for (const letter of deadLetters) await receiver.deadLetters.redeliver(letter.key);
   */
  readonly deadLetters: DeadLetters;
  /**
   * Erasure of one user, for an erasure request: removes every record the store holds of
   * `externalUserId` (sessions open or closed, results waiting for delivery or retained to
   * recognise duplicates, dead letters) in one atomic step, from every instance sharing the
   * store, and what this process remembers of the user. Resolves with how many records went
   * (`removed: 0` when there were none, as on a second call). Neither the id nor anything of
   * the user's is logged. It erases what faceverify holds only: what your handlers wrote,
   * and what the service keeps, are for you to erase.
   *
   * What comes afterwards never brings the erased records back: a poll or delivery in
   * flight loses its lease with the record, and its handler run (already under way with the
   * result it held) writes nothing back to the store; `confirm()` and `waitForResult()` find
   * the token `unknown`. A webhook of the user arriving later matches no tracked session: a
   * delivery already received is a replay and acknowledged as a duplicate (its body's digest
   * stays for the replay window: it names nobody without the body); any other is handled as a
   * webhook of no tracked session, so with an API client (`untrackedWebhooks: 'ignore'`) it is
   * answered `untracked` and neither stored nor delivered, and a webhook-only Receiver
   * delivers it as the new result it appears to be. A session started for the user
   * afterwards is new data and tracked as any other.
   *
   * @example
   * app.post('/admin/users/:id/erase', async (req, res) => {
   *   await db.users.erase(req.params.id); // what your handlers stored
   *   const { removed } = await receiver.forgetUser(req.params.id);
   *   res.json({ removed });
   * });
   */
  forgetUser(externalUserId: string, options?: ForgetUserScope): Promise<ForgottenUser>;
  /** Polls due sessions and retries failed deliveries once; call it from a cron trigger. */
  sweep(): Promise<SweepReport>;
  /**
   * Checks at startup what would otherwise fail at the first user's request: that the
   * service's API is at `FACEVERIFY_BASE_URL` and accepts `FACEVERIFY_API_KEY` (see
   * `Client.check`). Throws `ConfigurationError` naming the variable to change, with the
   * messages of `faceverify doctor`. A webhook-only Receiver (no client) has nothing to check;
   * a Receiver of several accounts checks each account of its map (a resolver's accounts
   * are checked as they are used).
   *
   * @example
   * const receiver = createReceiver();
   * await receiver.check(); // before app.listen(): a wrong key fails here, not at the first user
   */
  check(): Promise<void>;
  /**
   * Sweeps on a timer (`sweepIntervalMs`) in a long-lived process. Throws
   * `ConfigurationError` at once when the Receiver has no API client to poll with, unless it
   * was made webhook-only on purpose (`client: false`: it then only retries deliveries).
   */
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

// The store's clock is read again this often: clocks drift slowly, NTP steps are rare.
const STORE_CLOCK_REFRESH_MS = 30_000;
// How often a clock that stays skewed is raised again: the alarms' window.
const SKEW_REPORTED_EVERY_MS = 15 * 60_000;
const noWait = () => undefined;
const asDecided = (decided: Decided) => decided;

/** Raises `clock_skew`. */
function reportSkew(
  context: Omit<StoreAlarmContext, 'store'> & Pick<ReceiverContext, 'maxClockSkewMs'>,
  offsetMs: number,
): void {
  const seconds = (Math.abs(offsetMs) / 1000).toFixed(1);
  const side = offsetMs > 0 ? 'behind' : 'ahead of';
  reportStoreAlarm(
    context,
    new StoreAlarm(
      'clock_skew',
      `This process's clock is ${seconds} s ${side} the store's (more than maxClockSkewMs, ${context.maxClockSkewMs} ms). Leases and due times follow the store's clock, so no result is handled twice for it, but times this process logs and reports are off: synchronise its clock (NTP, chrony).`,
    ),
  );
}

// Counts and alarms cover this long: long enough to tell a pattern from one lost webhook.
const HEALTH_WINDOW_MS = 15 * 60_000;

/**
 * Creates a Receiver. With no options it reads `FACEVERIFY_WEBHOOK_SECRET` (required),
 * and `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL` for polling and starting sessions.
 *
 * @example
 * const receiver = createReceiver();
 * receiver.on('verification.completed', async ({ data }) => {
 *   await db.users.update(data.external_user_id, { verified: data.status === 'verified' });
 * });
 * receiver.start(); // poll for results whose webhook never arrives
 */
export function createReceiver<S extends Store = Store>(
  options: ReceiverOptions & { store?: S } = {},
): Receiver<TransactionOf<S>> {
  const resolved = resolveReceiverOptions(options);
  // When `clock_skew` was last raised: once per window while the clock stays off.
  let skewReportedAt: number | undefined;
  const storeTime = resolved.storeClock
    ? createStoreTime(resolved.clock, {
        readClock: () => options.store!.readClock!(),
        refreshMs: STORE_CLOCK_REFRESH_MS,
        maxSkewMs: resolved.maxClockSkewMs,
        onSkew: (offsetMs) => {
          const now = resolved.clock.now();
          if (skewReportedAt !== undefined && now - skewReportedAt < SKEW_REPORTED_EVERY_MS) return;
          skewReportedAt = now;
          reportSkew(context, offsetMs);
        },
      })
    : undefined;
  const activity = new ActivityWindow(resolved.clock, HEALTH_WINDOW_MS, (kind, account) => {
    // Only what can start a situation is checked: what all is well does, or anyone can do, never is.
    if (!ALARM_KINDS.has(kind)) return;
    const now = resolved.clock.now();
    alarms.check(now, kind);
    if (account !== undefined) accountAlarms.of(account).check(now, kind);
  });
  const slowCalls = new SlowStoreCalls(activity, resolved.storeSlowMs);
  // Built once per Receiver, not per request (per-request-literals.test.ts).
  const context: ReceiverContext = {
    ...resolved,
    now: storeTime ? storeTime.now : resolved.now,
    clockReady: storeTime ? storeTime.ready : noWait,
    store: resolved.store.watch(resolved.clock, resolved.storeSlowMs, slowCalls.began),
    handlers: new HandlerRegistry(),
    newOwner: createOwnerFactory(),
    ackTimers: new FixedDelayTimers(resolved.clock, resolved.ackAfterMs),
    renewalTimers: new FixedDelayTimers(resolved.clock, resolved.leaseMs / 3),
    activity,
    refusedBodies: new RefusedBodies(activity, () => resolved.clock.now()),
  };
  const raiseAlert = (alert: ReceiverAlert) => {
    context.log.error(alert.message, {
      code: alert.code,
      count: alert.count,
      ...(alert.account === undefined ? {} : { account: alert.account }),
    });
    context.handlers.raiseAlert(alert);
  };
  const starts = new SessionStarts(context);
  const alarms = new Alarms(context.activity, raiseAlert);
  const accountAlarms = new AccountAlarms(context.activity, raiseAlert);
  reportStoreAlarms(context);
  let timer: unknown;
  let backlogTimer: unknown;
  let started = false;
  let running: Promise<unknown> | undefined;

  const write = (decided: Decided): ReceiverResponse => writeAnswer(context, decided);
  const sweeps = new SweepProgress();
  const sweepAndCheck = async (): Promise<SweepReport> => {
    const report = await sweeps.track(context.now, () => sweep(context));
    await checkBacklog(context, sweeps);
    return report;
  };
  const runSweep = (): Promise<SweepReport> =>
    context.telemetry
      ? context.telemetry.span('sweep', sweepAndCheck, describeSweep)
      : sweepAndCheck();
  const confirm = createConfirmSession(context);
  /** The client a call names: the Receiver's, or its account's (refused when unknown). */
  const clientOf = async (account: string | undefined, action: string) => {
    const scoped = accountScope(context, account, action);
    if (scoped === undefined) return requireClient(context, action);
    const found = await context.accounts!.get(scoped);
    if (!found) {
      throw new ConfigurationError(
        `${action}: there is no account "${scoped}" (the accounts option${context.accounts!.listed().length > 0 ? ' lists no such id' : "'s resolver knows no such id"}).`,
      );
    }
    return found.client;
  };
  const readBacklog = async (): Promise<StoreBacklog> => {
    const now = context.now();
    const { due, oldestDueAt } = await context.store.dueSummary({ now });
    return { due, oldestDueAgeMs: oldestDueAt === undefined ? null : now - oldestDueAt };
  };
  const readStore = async () => {
    const now = context.now();
    const [records, backlog] = await Promise.all([context.store.counts({ now }), readBacklog()]);
    return { records, backlog };
  };

  const receiver: Receiver<TransactionOf<S>> = {
    maxBodyBytes: context.maxBodyBytes,
    on(
      name: ReceiverEventName,
      handler: (...args: never[]) => unknown,
      handlerOptions?: HandlerOptions,
    ) {
      if (handlerOptions?.transactional && !isTransactional(context.store)) {
        throw new ConfigurationError(
          'A transactional handler needs a store that runs handlers in its transaction, such as PostgresStore from @faceverify/postgres. Remove { transactional: true }, or pass such a store to createReceiver().',
        );
      }
      context.handlers.on(name, handler, handlerOptions);
      return receiver;
    },
    off(name, handler) {
      context.handlers.off(name, handler);
      return receiver;
    },
    receive(request) {
      const { telemetry } = context;
      if (telemetry) {
        return telemetry
          .span('receive', async () => decideAnswer(context, request, asDecided), describeAnswer)
          .then(write);
      }
      try {
        const answering = decideAnswer(context, request, write);
        // A refusal is decided with no promise before this one.
        return answering instanceof Promise ? answering : Promise.resolve(answering);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async startVerification({ account, purpose = '', fresh = false, ...params }) {
      const client = await clientOf(account, 'startVerification()');
      checkExternalUserId(params.externalUserId, 'startVerification()');
      if (typeof purpose !== 'string') {
        throw new TypeError('startVerification(): purpose must be a string.');
      }
      return starts.start({ client, params, account, purpose, fresh: fresh === true });
    },
    async track(token, externalUserId, trackOptions) {
      await clientOf(trackOptions?.account, 'track()');
      checkExternalUserId(externalUserId, 'track()');
      await starts.track(token, externalUserId, trackOptions?.account);
    },
    confirm: (token, confirmOptions) =>
      context.telemetry
        ? context.telemetry.span(
            'confirm',
            () => confirm(token, confirmOptions),
            (confirmed) => (context.includePersonalData ? describeConfirmed(confirmed) : {}),
          )
        : confirm(token, confirmOptions),
    waitForResult: (token, options) => waitForResult(context, token, options),
    forgetUser: (externalUserId, scope) => forgetUser(context, externalUserId, scope),
    sweep: runSweep,
    check: async () => {
      const clients = context.accounts
        ? context.accounts.listed().map((account) => account.client)
        : [context.client];
      for (const client of clients) {
        // A client of the integrator's own may predate check(): it is then not checked.
        if (typeof client?.check === 'function') await client.check();
      }
    },
    health: async (healthOptions) => {
      const account = healthOptions?.account;
      const sources = {
        readStore,
        clock: resolved.clock,
        now: context.now(),
        storeSlowMs: resolved.storeSlowMs,
        slowCalls,
        clockOffsetMs: storeTime?.offsetMs,
        maxClockSkewMs: resolved.maxClockSkewMs,
      };
      if (account === undefined) {
        return readHealth(Object.assign(sources, { activity: context.activity, alarms }));
      }
      accountScope(context, account, 'health()');
      const health = await readHealth(
        Object.assign(sources, {
          activity: context.activity.forAccount(account),
          alarms: accountAlarms.of(account),
        }),
      );
      return { account, ...health };
    },
    // Dead letters are read and reopened on the clock leases use.
    deadLetters: createDeadLetters(context.store, { ...context.clock, now: context.now }),
    start() {
      if (started) return;
      // Polling is what start() is for; only an explicit webhook-only Receiver sweeps without it.
      if (options.client !== false && !context.accounts) requireClient(context, 'start()');
      started = true;
      const tick = () => {
        running = runSweep()
          .catch((error: unknown) => context.handlers.reportError(error, { stage: 'store' }))
          .finally(() => {
            running = undefined;
            // The next sweep is timed from the end of this one, so sweeps never overlap.
            if (started) timer = context.clock.setTimeout(tick, context.sweepIntervalMs);
          });
      };
      timer = context.clock.setTimeout(tick, context.sweepIntervalMs);
      // A sweep that runs long (thousands due, a slow service) would judge the backlog only
      // when it ends: it is judged on its own clock too.
      const watchBacklog = () => {
        const next = () => {
          if (started)
            backlogTimer = context.clock.setTimeout(watchBacklog, BACKLOG_CHECK_EVERY_MS);
        };
        checkBacklog(context, sweeps).then(next, next);
      };
      backlogTimer = context.clock.setTimeout(watchBacklog, BACKLOG_CHECK_EVERY_MS);
    },
    async stop() {
      started = false;
      context.clock.clearTimeout(timer);
      context.clock.clearTimeout(backlogTimer);
      await running;
    },
  };
  context.telemetry?.attach({
    readCounts: () => context.store.counts({ now: context.now() }),
    readBacklog,
  });
  return receiver;
}

function describeAnswer({ name, account }: Decided): ReceiverSpanAttributes {
  const attributes: ReceiverSpanAttributes = {
    'http.response.status_code': WEBHOOK_ANSWERS[name].status,
    'faceverify.webhook.answer': name,
  };
  if (account !== undefined) attributes[ACCOUNT_ATTRIBUTE] = account;
  return attributes;
}

function describeSweep(report: SweepReport): ReceiverSpanAttributes {
  return {
    'faceverify.sweep.leased': report.leased,
    'faceverify.sweep.delivered': report.delivered,
  };
}

function describeConfirmed(confirmed: ConfirmedSession): ReceiverSpanAttributes {
  return { 'faceverify.session.status': confirmed.status };
}
