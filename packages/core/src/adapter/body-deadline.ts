import { FixedDelayTimers, type PendingTimer } from '../clock/fixed-delay-timers.js';
import type { BodyRead } from './body-read.js';
import type { Timers } from './timers.js';

/** A body read, or the deadline passed first (`afterMs`, the deadline). */
export type DeadlineRead = BodyRead | { kind: 'timeout'; afterMs: number };

const UNREADABLE: BodyRead = {
  kind: 'unreadable',
  reason: 'The request body could not be read.',
};

// Controllers kept for reuse: more than the reads a server has in flight at once is waste.
const POOL_LIMIT = 64;

/**
 * Runs body reads that give up after `ms`: a sender that trickles a body (or stops sending)
 * must not hold the request, and its buffered bytes, for the server's whole request timeout.
 * On the deadline the read's signal aborts, so the reader can stop.
 *
 * Creating an `AbortSignal` costs more than reading and verifying a small webhook on Node, so
 * the signal of a read that ended before its deadline (never aborted, its listener removed by
 * the reader) is handed to a later read. An aborted signal is never reused.
 */
export function createBodyDeadline(ms: number, timers: Timers) {
  // Workers tie an AbortSignal, and a timer, to the request that created it: reused by a later
  // request, its reads fail ("body could not be read"). There every read gets its own of both.
  const timeout: DeadlineRead = { kind: 'timeout', afterMs: ms };
  const workers = isWorkers();
  const idle: AbortController[] | undefined = workers ? undefined : [];
  // Elsewhere the deadlines of all reads share one timer: a platform timer set and cleared
  // for every request costs more than the rest of reading a small body.
  const shared = workers ? undefined : new FixedDelayTimers(timers, ms);
  const deadlines = {
    start: (callback: () => void) => shared?.start(callback) ?? timers.setTimeout(callback, ms),
    cancel: (handle: unknown) => {
      if (shared) shared.cancel(handle as PendingTimer);
      else timers.clearTimeout(handle);
    },
  };
  return function readWithDeadline(
    read: (signal: AbortSignal) => Promise<BodyRead>,
  ): Promise<DeadlineRead> {
    const controller = idle?.pop() ?? new AbortController();
    return new Promise<DeadlineRead>((resolve) => {
      let done = false;
      const handle = deadlines.start(() => {
        if (done) return;
        done = true;
        resolve(timeout);
        controller.abort();
      });
      const finish = (result: BodyRead) => {
        if (done) return;
        done = true;
        deadlines.cancel(handle);
        if (idle && idle.length < POOL_LIMIT) idle.push(controller);
        resolve(result);
      };
      let reading: Promise<BodyRead>;
      try {
        reading = read(controller.signal);
      } catch (error) {
        // A reader that throws instead of rejecting fails the request, as it always did.
        done = true;
        deadlines.cancel(handle);
        throw error;
      }
      reading.then(finish, () => finish(UNREADABLE));
    });
  };
}

/** Cloudflare Workers (workerd) announce themselves in `navigator.userAgent`. */
function isWorkers(): boolean {
  return (
    (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ===
    'Cloudflare-Workers'
  );
}
