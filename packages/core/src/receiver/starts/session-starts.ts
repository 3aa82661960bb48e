import { ApiError, NetworkError, StartLimitError, TimeoutError } from '../../base/errors.js';
import { delay } from '../../client/delay.js';
import type { Client, CreateSessionParams } from '../../client/types.js';
import { announceDisplaced, type DisplacedContext } from '../../delivery/announce-displaced.js';
import type { DeliveryContext } from '../../delivery/delivery-context.js';
import type { StartCount } from '../../store/sealed/token-protecting-store.js';
import type { InsertedStart, TrackedSession } from '../../store/store.js';
import type { ResolvedStarts } from './starts-option.js';

/** What starting sessions works with. */
export type StartContext = DisplacedContext &
  Pick<
    DeliveryContext,
    | 'store'
    | 'log'
    | 'clock'
    | 'clockReady'
    | 'newOwner'
    | 'activity'
    | 'telemetry'
    | 'sessionLifetimeMs'
    | 'pollScheduleMs'
    | 'replayWindowMs'
  > & { starts: ResolvedStarts };

/** One call of `startVerification`, its account resolved to a client. */
export interface StartRequest {
  client: Client;
  params: CreateSessionParams;
  account: string | undefined;
  /** The need: starts of one user and purpose share one open session. */
  purpose: string;
  /** A new session even when one is open. */
  fresh: boolean;
}

/** What `startVerification` resolves with. */
export interface StartedVerification {
  token: string;
  /** Address of the hosted verification page; the only thing to send to the browser. */
  verifyUrl: string;
  /** `true` when an open session of the same user and purpose was handed out again. */
  reused: boolean;
  /** When the session is given up if it has not completed (`sessionLifetimeMs` after it began). */
  expiresAt: Date;
}

// While another instance creates the session: how long to wait before asking again, doubled
// each time up to the last. A session is created within a few hundred ms, usually.
const FIRST_WAIT_MS = 50;
const LONGEST_WAIT_MS = 1_000;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

// Starts of an account within an hour are surging past this many, and this many times the
// hourly average of the day before: a launch is told apart by its operator, a script is not.
const SURGE_AT_LEAST = 100;
const SURGE_FACTOR = 10;

const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10);
const hourOf = (now: number) => new Date(now).toISOString().slice(0, 13);

/** The counts a start reads and counts, in this order (see `surge` and `limitError`). */
function countsAt(now: number, starts: ResolvedStarts): StartCount[] {
  const limited = (limit: number) => (Number.isFinite(limit) ? { limit } : {});
  return [
    { of: 'user', period: dayOf(now), ttlMs: DAY_MS, ...limited(starts.perUserPerDay) },
    { of: 'account', period: dayOf(now), ttlMs: 2 * DAY_MS, ...limited(starts.perAccountPerDay) },
    { of: 'account', period: hourOf(now), ttlMs: HOUR_MS },
    { of: 'account', period: dayOf(now - DAY_MS), ttlMs: 2 * DAY_MS, readOnly: true },
  ];
}

/**
 * A failure after which the service may have created the session all the same: the request
 * may have reached it (no answer in time, a connection dropped mid-way, a 5xx).
 */
function mayHaveCreated(error: unknown): boolean {
  return (
    error instanceof TimeoutError ||
    error instanceof NetworkError ||
    (error instanceof ApiError && error.serviceStatus >= 500)
  );
}

/**
 * `startVerification`: one open session per user and purpose, shared by concurrent starts in
 * this process (one promise) and across processes (the store's claim, `Store.claimStart`),
 * handed out again while it has life left, and counted against the day's limits before
 * anything is sent to the service.
 */
export class SessionStarts {
  // Starts in flight in this process, by account, user and purpose: a double click, a retry
  // and a second tab share one store claim and one session.
  private readonly inFlight = new Map<string, Promise<StartedVerification>>();

  constructor(private readonly context: StartContext) {}

  start(request: StartRequest): Promise<StartedVerification> {
    if (request.fresh) return this.claimAndCreate(request);
    const key = `${request.account ?? ''}\u0000${request.params.externalUserId}\u0000${request.purpose}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const starting = this.claimAndCreate(request).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, starting);
    return starting;
  }

  /** Tracks a session created elsewhere (`receiver.track()`), or by `start`. */
  async track(
    token: string,
    externalUserId: string,
    account: string | undefined,
    created?: { verifyUrl: string; expiresAt?: number; start?: InsertedStart },
  ): Promise<TrackedSession> {
    const { context } = this;
    await context.clockReady();
    const now = context.now();
    const record: TrackedSession = {
      key: token,
      token,
      externalUserId,
      ...(account === undefined ? {} : { account }),
      ...(created ? { verifyUrl: created.verifyUrl } : {}),
      ...(created?.expiresAt === undefined ? {} : { verifyUrlExpiresAt: created.expiresAt }),
      createdAt: now,
      expiresAt: now + context.sessionLifetimeMs,
      state: 'pending',
      dueAt: now + context.pollScheduleMs[0]!,
      attempts: 0,
    };
    const { displaced } = await context.store.insert({
      record,
      now,
      maxOpenPerUser: context.maxOpenPerUser,
      displacedRetainMs: context.replayWindowMs,
      ...(created?.start ? { start: created.start } : {}),
    });
    await announceDisplaced(context, displaced);
    return record;
  }

  private async claimAndCreate(request: StartRequest): Promise<StartedVerification> {
    const { context } = this;
    const { starts } = context;
    const { externalUserId } = request.params;
    await context.clockReady();
    const owner = context.newOwner();
    let reuse = !request.fresh;
    let waitMs = FIRST_WAIT_MS;
    for (;;) {
      const now = context.now();
      const claimed = await context.store.claimSessionStart({
        externalUserId,
        account: request.account,
        purpose: request.purpose,
        owner,
        now,
        claimMs: starts.claimMs,
        ...(reuse ? { reuseMinLifetimeMs: starts.reuseMinLifetimeMs } : {}),
        counts: countsAt(now, starts),
      });
      // A store without starts: every start creates a session, uncounted (docs: Sessions).
      if (claimed === undefined) return this.create(request, undefined);
      switch (claimed.claim) {
        case 'reuse': {
          const { token, verifyUrl, expiresAt, verifyUrlExpiresAt } = claimed.record;
          // The service's token may expire before the Receiver gives the session up: a link
          // with less life left there than asked is not handed out either.
          const linkLives =
            verifyUrlExpiresAt === undefined ||
            verifyUrlExpiresAt >= now + starts.reuseMinLifetimeMs;
          if (token !== undefined && verifyUrl !== undefined && linkLives) {
            return { token, verifyUrl, reused: true, expiresAt: new Date(expiresAt) };
          }
          // Sealed under keys this instance lacks, or about to expire at the service: a new one.
          reuse = false;
          continue;
        }
        case 'limited':
          throw this.limitError(claimed.counter, now, request.account);
        case 'busy':
          await delay(context.clock, Math.max(1, Math.min(waitMs, claimed.until - now)));
          waitMs = Math.min(2 * waitMs, LONGEST_WAIT_MS);
          continue;
        case 'granted':
          this.noteSurge(claimed.counts, request.account);
          return this.create(request, { startKey: claimed.startKey, owner });
      }
    }
  }

  /** Creates the session at the service and tracks it, ending the claim either way. */
  private async create(
    { client, params, account }: StartRequest,
    start: InsertedStart | undefined,
  ): Promise<StartedVerification> {
    const { context } = this;
    const { telemetry } = context;
    let created: Awaited<ReturnType<Client['createSession']>>;
    try {
      created = await (telemetry
        ? client.createSession(params, {
            onRateLimitWait: () => telemetry.rateLimitWaited('retried', account),
          })
        : client.createSession(params));
    } catch (error) {
      if (mayHaveCreated(error)) {
        context.activity.record('start_ambiguous', undefined, account);
        context.log.warn(
          'Starting a session failed after its request may have reached the service: it may have created a session this Receiver does not track.',
          { ...(account === undefined ? {} : { account }) },
        );
      }
      // The next start of this user and purpose may go ahead at once; the error is the caller's.
      if (start) await this.endClaim(start);
      throw error;
    }
    let record: TrackedSession;
    try {
      record = await this.track(created.token, params.externalUserId, account, {
        verifyUrl: created.verifyUrl,
        ...(created.expiresAt === undefined ? {} : { expiresAt: created.expiresAt }),
        ...(start ? { start } : {}),
      });
    } catch (error) {
      // Not tracked (the store failed): the user's retry need not wait for the claim to lapse.
      if (start) await this.endClaim(start);
      throw error;
    }
    return {
      token: created.token,
      verifyUrl: created.verifyUrl,
      reused: false,
      expiresAt: new Date(record.expiresAt),
    };
  }

  private async endClaim(start: InsertedStart): Promise<void> {
    const { context } = this;
    try {
      await context.store.endSessionStart(Object.assign({ now: context.now() }, start));
    } catch (error) {
      // The claim lapses after `claimMs` on its own; the start's own error is what to throw.
      context.log.warn('Could not end a claim of a session start; it lapses on its own.', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private limitError(counter: number, now: number, account: string | undefined): StartLimitError {
    const { starts } = this.context;
    const retryAt = new Date((Math.floor(now / DAY_MS) + 1) * DAY_MS);
    const of = account === undefined ? '' : ` of account "${account}"`;
    if (counter === 0) {
      return new StartLimitError(
        `This user${of} has started ${starts.perUserPerDay} verification sessions today (UTC), the most starts.perUserPerDay allows: nothing was sent to the service. Ask the user to try again after ${retryAt.toISOString()}, or raise starts.perUserPerDay in createReceiver() if real users need more.`,
        'user',
        starts.perUserPerDay,
        retryAt,
      );
    }
    return new StartLimitError(
      `The account${of} has started ${starts.perAccountPerDay} verification sessions today (UTC), the most starts.perAccountPerDay allows: nothing was sent to the service. Starts resume after ${retryAt.toISOString()}; if the traffic is real, raise starts.perAccountPerDay in createReceiver().`,
      'account',
      starts.perAccountPerDay,
      retryAt,
    );
  }

  /** Counts `starts_surging` when this hour's starts run far above yesterday's hourly rate. */
  private noteSurge(counts: readonly number[], account: string | undefined): void {
    const thisHour = counts[2] ?? 0;
    const usualPerHour = (counts[3] ?? 0) / 24;
    if (thisHour < SURGE_AT_LEAST || thisHour <= SURGE_FACTOR * usualPerHour) return;
    this.context.activity.record(
      'starts_surging',
      `${thisHour} sessions were started this hour (UTC), against ${usualPerHour.toFixed(1)} an hour on average yesterday`,
      account,
    );
  }
}
