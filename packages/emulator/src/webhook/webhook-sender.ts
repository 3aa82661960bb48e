import { setTimeout as sleep } from 'node:timers/promises';
import { sign } from '@faceverify/core';
import type { FaultInjector } from '../faults/fault-injector.js';
import type { EmulatorLogger } from '../logger.js';
import type { RandomSource } from '../random.js';
import type { WebhookStats } from '../stats.js';
import { EMULATOR_VERSION } from '../version.js';
import type { DeliveryAttempt, DeliveryLog } from './delivery-log.js';
import { postBytes } from './post-bytes.js';
import { serializeWebhookBody, type WebhookBody } from './serialize-body.js';

// A 404 almost always means the callback URL's path differs from the app's webhook route.
const NOT_FOUND_HINT =
  '. Nothing answers at this path: check that --callback-url (or setCallbackUrl) names the route your app mounts the webhook on, /webhooks/verification in the examples.';

/**
 * Where a webhook goes and what signs it: the session's account. Its callback URL is read
 * at each event, so one changed at runtime applies to the next webhook.
 */
export interface WebhookAccount {
  readonly callbackUrl: string | null;
  readonly signingSecret: string;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  faults: FaultInjector;
  random: RandomSource;
  counters: WebhookStats;
  logger: EmulatorLogger | undefined;
  /** Where each attempt is recorded for the inspector, by session id. */
  log: DeliveryLog;
}

type Faults = DeliveryAttempt['faults'];
const NO_FAULTS: Faults = { delayedMs: 0, corrupted: false, duplicate: false };

const encoder = new TextEncoder();

/** A signature of the right length and alphabet that does not match the body. */
function corrupted(signature: string): string {
  return signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
}

/**
 * Sends `verification.completed` webhooks the way the service does: best effort, fire and
 * forget, one attempt and no retry, signed over the exact bytes sent. A failed delivery is
 * counted and logged and changes nothing else.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * One controller per delivery rather than one shared signal: thousands of concurrent
   * deliveries would otherwise pile listeners onto a single signal.
   */
  private readonly cancellers = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: WebhookSenderOptions) {}

  /**
   * Starts delivering to `account` and returns at once: the completion call never waits for
   * the receiver. `sessionId` names the session in the inspector's log (never its token).
   */
  dispatch(payload: WebhookBody, sessionId: string, account: WebhookAccount): void {
    const canceller = new AbortController();
    // A completion that races with close() is abandoned like the deliveries already running.
    if (this.closed) canceller.abort();
    this.cancellers.add(canceller);
    const delivery = this.deliver(payload, sessionId, account, canceller.signal)
      .catch((error: unknown) => {
        // Delivery is best effort: nothing it does may take the emulator down.
        this.options.logger?.warn(`webhook not sent: ${String(error)}`);
      })
      .finally(() => {
        this.cancellers.delete(canceller);
        this.inFlight.delete(delivery);
      });
    this.inFlight.add(delivery);
  }

  /** Resolves once every delivery started so far, including delayed ones, has ended. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Abandons delayed and in-flight deliveries. */
  close(): void {
    this.closed = true;
    for (const canceller of this.cancellers) canceller.abort();
  }

  private async deliver(
    payload: WebhookBody,
    sessionId: string,
    account: WebhookAccount,
    cancelled: AbortSignal,
  ): Promise<void> {
    const { counters, logger, log } = this.options;
    counters.events += 1;
    const who = JSON.stringify(payload.external_user_id);
    const { callbackUrl } = account;
    const unsent = (outcome: 'dropped' | 'no-callback-url', answer: string) =>
      log.add(sessionId, {
        at: Date.now(),
        outcome,
        url: callbackUrl,
        status: null,
        latencyMs: null,
        answer,
        faults: NO_FAULTS,
      });
    if (callbackUrl === null) {
      counters.skipped += 1;
      logger?.warn(`webhook for ${who} not sent: no callback URL is set`);
      unsent('no-callback-url', 'not sent: no callback URL is set');
      return;
    }
    const plan = this.options.faults.planWebhook();
    if (plan.drop) {
      counters.dropped += 1;
      logger?.info(`webhook for ${who} dropped (fault)`);
      unsent('dropped', 'not sent: dropped (fault)');
      return;
    }
    const body = serializeWebhookBody(payload, this.options.random);
    const signature = await sign(body, account.signingSecret);
    if (plan.corrupt) counters.corrupted += 1;
    if (plan.delayMs > 0) {
      counters.delayed += 1;
      logger?.info(`webhook for ${who} delayed ${plan.delayMs} ms (fault)`);
      try {
        await sleep(plan.delayMs, undefined, { signal: cancelled });
      } catch {
        return;
      }
    }
    if (plan.duplicate) counters.duplicated += 1;
    const target = new URL(callbackUrl);
    const bytes = encoder.encode(body);
    const sentSignature = plan.corrupt ? corrupted(signature) : signature;
    const label = `webhook for ${who}${plan.corrupt ? ' (corrupted signature)' : ''}`;
    // A duplicate is the very same request twice, sent concurrently, as a replaying proxy would.
    const copies = plan.duplicate ? 2 : 1;
    const faults: Faults = {
      delayedMs: plan.delayMs,
      corrupted: plan.corrupt,
      duplicate: plan.duplicate,
    };
    await Promise.all(
      Array.from({ length: copies }, () =>
        this.send(target, bytes, sentSignature, label, cancelled, (attempt) =>
          log.add(sessionId, { ...attempt, url: target.href, faults }),
        ),
      ),
    );
  }

  private async send(
    target: URL,
    bytes: Uint8Array,
    signature: string,
    label: string,
    cancelled: AbortSignal,
    record: (attempt: Omit<DeliveryAttempt, 'url' | 'faults'>) => void,
  ): Promise<void> {
    const { counters, logger, timeoutMs } = this.options;
    counters.sent += 1;
    const at = Date.now();
    const started = performance.now();
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const { status, body } = await postBytes(
        target,
        bytes,
        {
          'content-type': 'application/json',
          'user-agent': `faceverify-emulator/${EMULATOR_VERSION}`,
          'x-webhook-signature': signature,
        },
        AbortSignal.any([cancelled, timeout]),
      );
      const elapsed = Math.round(performance.now() - started);
      record({ at, outcome: 'answered', status, latencyMs: elapsed, answer: body });
      if (status >= 200 && status < 300) {
        counters.delivered += 1;
        logger?.info(`${label} → ${target.href}: ${status} (${elapsed} ms)`);
      } else {
        counters.failed += 1;
        logger?.warn(
          `${label} → ${target.href}: ${status} (${elapsed} ms), not retried${status === 404 ? NOT_FOUND_HINT : ''}`,
        );
      }
    } catch (error) {
      counters.failed += 1;
      const reason = timeout.aborted
        ? `no answer within ${timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      record({
        at,
        outcome: 'failed',
        status: null,
        latencyMs: Math.round(performance.now() - started),
        answer: reason,
      });
      logger?.warn(`${label} → ${target.href} failed: ${reason}, not retried`);
    }
  }
}
