import type { CreateSessionParams } from '../client/index.js';
import type { VerificationPayload } from '../payload/types.js';
import type { TrackedSession } from '../store/store.js';
import { pollLeased } from '../tracker/poll-session.js';
import { type SweepReport, sweep } from '../tracker/sweep.js';
import { createOwnerFactory, type ReceiverContext, requireClient } from './context.js';
import type { ReceiverEventMap, ReceiverEventName } from './events.js';
import { HandlerRegistry } from './handler-registry.js';
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
export interface Receiver {
  /** Largest accepted body; adapters stop reading past it. */
  readonly maxBodyBytes: number;
  on<Name extends ReceiverEventName>(name: Name, handler: ReceiverEventMap[Name]): this;
  off<Name extends ReceiverEventName>(name: Name, handler: ReceiverEventMap[Name]): this;
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
  /** Sweeps on a timer (`sweepIntervalMs`) in a long-lived process. */
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
export function createReceiver(options: ReceiverOptions = {}): Receiver {
  const context: ReceiverContext = {
    ...resolveReceiverOptions(options),
    handlers: new HandlerRegistry(),
    newOwner: createOwnerFactory(),
  };
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> | undefined;

  const runSweep = (): Promise<SweepReport> => sweep(context);

  const receiver: Receiver = {
    maxBodyBytes: context.maxBodyBytes,
    on(name, handler) {
      context.handlers.on(name, handler);
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
        context.handlers.reportError(error, { stage: 'store' });
        return errorResponse(500, 'store_unavailable', 'The webhook could not be processed.');
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
      const now = context.now();
      const session: TrackedSession = {
        key: token,
        token,
        externalUserId,
        createdAt: now,
        expiresAt: now + context.sessionLifetimeMs,
        state: 'pending',
        dueAt: now + context.pollScheduleMs[0]!,
        attempts: 0,
      };
      await context.store.insert(session);
    },
    async confirm(token) {
      const client = requireClient(context, 'confirm()');
      const owner = context.newOwner();
      const session = await context.store.lease(token, owner, context.now(), context.leaseMs);
      if (session) {
        const { status, result } = await pollLeased(context, session, owner);
        return result ? { status, result } : { status };
      }
      const stored = await context.store.get(token);
      if (stored?.result) {
        return { status: stored.result.payload.status, result: stored.result.payload };
      }
      if (stored?.state === 'expired') return { status: 'expired' };
      // Untracked, or being worked on elsewhere: report the service's answer, deliver nothing.
      const snapshot = await client.getSession(token);
      return snapshot.result
        ? { status: snapshot.status, result: snapshot.result }
        : { status: snapshot.status };
    },
    sweep: runSweep,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = runSweep()
          .catch((error: unknown) => context.handlers.reportError(error, { stage: 'store' }))
          .finally(() => {
            running = undefined;
          });
      }, context.sweepIntervalMs);
      (timer as { unref?: () => void }).unref?.();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
  attachReceiverLog(receiver, context.log);
  return receiver;
}
