import { onAbort } from '../../base/signal/on-abort.js';
import { isPathSegment } from '../../client/path-segment.js';
import type { DeliveryContext } from '../../delivery/delivery-context.js';
import type { TrackedSession } from '../../store/store.js';
import type { VerificationPayload } from '../../wire/payload/types.js';

/** What `waitForResult` resolves with. */
export type WaitedResult =
  | {
      /**
       * The result was delivered: the `verification.completed` handlers succeeded.
       */
      state: 'completed';
      result: VerificationPayload;
      /**
       * How it arrived: by its webhook, or by polling the service.
       */
      source: 'webhook' | 'poll';
      /**
       * The user had started a newer session when it was delivered (`event.superseded`):
       * the handlers saw it with `superseded: true`.
       */
      superseded: boolean;
    }
  /**
   * The result arrived after its user had started a newer session, and the Receiver skips
   * such results (`supersededResults: 'skip'`): recorded as done, passed to
   * `verification.superseded` handlers and never to the `verification.completed` ones. The
   * newer session decides.
   */
  | { state: 'superseded'; result: VerificationPayload; source: 'webhook' | 'poll' }
  /**
   * The session was never completed within its lifetime, or was given up for a newer one.
   */
  | { state: 'expired' }
  /**
   * The handlers failed on every attempt: `verification.undeliverable` was emitted.
   */
  | { state: 'failed' }
  /**
   * Not known yet when `timeoutMs` passed.
   */
  | { state: 'pending' }
  /**
   * This Receiver's store tracks no session with this token.
   */
  | { state: 'unknown' };

/** Options of `receiver.waitForResult()`. */
export interface WaitForResultOptions {
  /** How long to wait before resolving `{ state: 'pending' }`. Default 30 s. */
  timeoutMs?: number;
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * On a Receiver of several accounts: the account the token must be of. A token of another
   * account is `unknown`, so a return page of one account never shows another's result.
   */
  account?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * How often the store is read again on its own: often where it tells no one what it closed
 * (D1, a MemoryStore in another process), seldom where it does (notices can be lost).
 */
const REREAD_UNWATCHED_MS = 1_000;
const REREAD_WATCHED_MS = 5_000;

function outcomeOf(record: TrackedSession | undefined): WaitedResult | undefined {
  if (!record) return { state: 'unknown' };
  const stored = record.result;
  if (record.state === 'completed' && stored) {
    const { payload: result, source } = stored;
    return stored.superseded === 'skipped'
      ? { state: 'superseded', result, source }
      : { state: 'completed', result, source, superseded: stored.superseded === 'delivered' };
  }
  if (record.state === 'expired' || record.state === 'failed') return { state: record.state };
  // Open, or completed without its result (a delivery matched to no session): not this one.
  return record.state === 'completed' ? { state: 'unknown' } : undefined;
}

/**
 * Resolves once the session's result is delivered (by this instance or another: webhook,
 * poll or `confirm()`), the session ends otherwise, or `timeoutMs` passes. It reads the
 * store, never the service: when the store says it closed a record of this token
 * (`Store.watchClosed`) and, as a fallback, every few seconds.
 */
export async function waitForResult(
  context: Pick<DeliveryContext, 'store' | 'clock' | 'now'>,
  token: string,
  options: WaitForResultOptions = {},
): Promise<WaitedResult> {
  const { store, clock } = context;
  const { signal } = options;
  signal?.throwIfAborted();
  if (!isPathSegment(token)) return { state: 'unknown' };
  const { account } = options;
  const read = async () => {
    const record = await store.get({ key: token, now: context.now() });
    return outcomeOf(account === undefined || record?.account === account ? record : undefined);
  };
  const first = await read();
  if (first) return first;
  const keys = new Set(await store.keysOf(token));

  return new Promise<WaitedResult>((resolve, reject) => {
    let done = false;
    let reading = false;
    let readAgain = false;
    let rereadTimer: ReturnType<typeof clock.setTimeout> | undefined;
    let unwatch: (() => void) | undefined;
    let stopListening: (() => void) | undefined;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clock.clearTimeout(timeoutTimer);
      if (rereadTimer !== undefined) clock.clearTimeout(rereadTimer);
      unwatch?.();
      stopListening?.();
      settle();
    };
    // One read at a time; a notice during a read makes one more read after it.
    const wake = async () => {
      if (reading) {
        readAgain = true;
        return;
      }
      reading = true;
      try {
        do {
          readAgain = false;
          const outcome = await read();
          if (outcome) return finish(() => resolve(outcome));
        } while (readAgain && !done);
      } catch {
        // The store failed this read: the next notice or reread tries again.
      } finally {
        reading = false;
      }
    };
    const watched = store.watchClosed !== undefined;
    const reread = () => {
      if (done) return;
      void wake();
      rereadTimer = clock.setTimeout(reread, watched ? REREAD_WATCHED_MS : REREAD_UNWATCHED_MS);
    };
    stopListening = onAbort(signal, () => finish(() => reject(signal?.reason)));
    unwatch = store.watchClosed?.((key) => {
      if (keys.has(key)) void wake();
    });
    const timeoutTimer = clock.setTimeout(
      () => finish(() => resolve({ state: 'pending' })),
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    // Read once more now: the record may have closed between the first read and the watch.
    reread();
  });
}
