import { checkExternalUserId } from '../client/external-user-id.js';
import type { CreateSessionParams } from '../client/index.js';
import { FixedDelayTimers } from '../clock/fixed-delay-timers.js';
import { ConfigurationError } from '../errors.js';
import type { VerificationPayload } from '../payload/types.js';
import {
  isTransactional,
  type Store,
  type TrackedSession,
  type TransactionOf,
} from '../store/store.js';
import { pollLeased } from '../tracker/poll-session.js';
import { type SweepReport, sweep } from '../tracker/sweep.js';
import { announceDisplaced } from './announce-displaced.js';
import { createOwnerFactory, type ReceiverContext, requireClient } from './context.js';
import type { ReceiverEventMap, ReceiverEventName, VerificationCompletedEvent } from './events.js';
import { type HandlerOptions, HandlerRegistry } from './handler-registry.js';
import { errorResponse, type ReceiverResponse } from './http-response.js';
import { type ReceiverOptions, resolveReceiverOptions } from './options.js';
import { receiveWebhook, type WebhookRequest } from './receive-webhook.js';
import { attachReceiverLog } from './receiver-log.js';

/** A started verification: send only `verifyUrl` to the browser. */
export interface StartedVerification {
  token: string;
  verifyUrl: string;
}

/** The authoritative state of a session, as `confirm` found it. */
export interface ConfirmedSession {
  status: 'pending' | 'verified' | 'failed' | 'expired' | 'unknown';
  result?: VerificationPayload;
}

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
  /** Creates a session (`POST /v1/verify`) and tracks it until its result is delivered. */
  startVerification(params: CreateSessionParams): Promise<StartedVerification>;
  /** Tracks a session created elsewhere, so a missed webhook is polled for. */
  track(token: string, externalUserId: string): Promise<void>;
  /**
   * Asks the service now. Use it when the browser returns from the hosted page: the
   * redirect is never the result. A completed result of a tracked session is delivered to
   * handlers (once) before this resolves.
   */
  confirm(token: string): Promise<ConfirmedSession>;
  /** Polls due sessions and retries failed deliveries once; call it from a cron trigger. */
  sweep(): Promise<SweepReport>;
  /**
   * Sweeps on a timer (`sweepIntervalMs`) in a long-lived process. Throws
   * `ConfigurationError` at once when the Receiver has no API client to poll with, unless it
   * was made webhook-only on purpose (`client: false`: it then only retries deliveries).
   */
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

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
  const context: ReceiverContext = {
    ...resolved,
    handlers: new HandlerRegistry(),
    newOwner: createOwnerFactory(),
    ackTimers: new FixedDelayTimers(resolved.clock, resolved.ackAfterMs),
    renewalTimers: new FixedDelayTimers(resolved.clock, resolved.leaseMs / 3),
  };
  let timer: unknown;
  let started = false;
  let running: Promise<unknown> | undefined;

  const runSweep = (): Promise<SweepReport> => sweep(context);

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
    async receive(request) {
      try {
        return await receiveWebhook(context, request);
      } catch (error) {
        // Store failures are answered inside (503); anything reaching here is a defect.
        context.handlers.reportError(error, { stage: 'internal' });
        context.log.error('Unexpected error while receiving a webhook.', {
          error: error instanceof Error ? error.message : String(error),
        });
        return errorResponse(500, 'internal_error', 'The webhook could not be processed.');
      }
    },
    async startVerification(params) {
      const client = requireClient(context, 'startVerification()');
      const created = await client.createSession(params);
      await receiver.track(created.token, params.externalUserId);
      return { token: created.token, verifyUrl: created.verifyUrl };
    },
    async track(token, externalUserId) {
      requireClient(context, 'track()');
      checkExternalUserId(externalUserId, 'track()');
      const now = context.now();
      const record: TrackedSession = {
        key: token,
        token,
        externalUserId,
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
      });
      await announceDisplaced(context, displaced);
    },
    async confirm(token) {
      const client = requireClient(context, 'confirm()');
      const owner = context.newOwner();
      const session = await context.store.lease({
        key: token,
        owner,
        now: context.now(),
        leaseMs: context.leaseMs,
      });
      // Always the service's word: never a stored result that came by webhook alone.
      if (session) {
        const { outcome, status, result } = await pollLeased(context, session, owner, {
          ask: true,
        });
        if (outcome !== 'retry-later') return result ? { status, result } : { status };
      }
      // Untracked, closed, or being worked on elsewhere: report the service's answer.
      const snapshot = await client.getSession(token);
      return snapshot.result
        ? { status: snapshot.status, result: snapshot.result }
        : { status: snapshot.status };
    },
    sweep: runSweep,
    start() {
      if (started) return;
      // Polling is what start() is for; only an explicit webhook-only Receiver sweeps without it.
      if (options.client !== false) requireClient(context, 'start()');
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
    },
    async stop() {
      started = false;
      context.clock.clearTimeout(timer);
      await running;
    },
  };
  attachReceiverLog(receiver, context.log);
  return receiver;
}
