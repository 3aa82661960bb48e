import { FixedDelayTimers, type PendingTimer } from '../base/clock/fixed-delay-timers.js';
import { ABORTED_BODY, type BodyRead, SIZE_MISMATCH_BODY, UNREADABLE_BODY } from './body-read.js';
import type { Timers } from './timers.js';
import type { WebhookPlatform } from './webhook-platform.js';

/** A body read, or the deadline passed first (`afterMs`, the deadline). */
export type DeadlineRead = BodyRead | { kind: 'timeout'; afterMs: number };

// Controllers kept for reuse: more than the reads a server has in flight at once is waste.
const POOL_LIMIT = 64;

/**
 * Reads bodies through a platform's reader, giving up after `ms`: a sender that trickles a
 * body (or stops sending) must not hold the request, and its buffered bytes, for the server's
 * whole request timeout. The reader's own promise (raw-body's, a Fetch `arrayBuffer()`) races
 * the deadline, and one `then` maps its end to a read; a read the reader decides at once takes
 * no promise and no timer. On the deadline the read's signal aborts, so a stream reader can
 * stop (a Node stream is paused by the adapter's answer, which closes the connection).
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

  /** `declared` is the request's Content-Length, which bytes read must match. */
  return function readWithDeadline<Request, Response>(
    platform: WebhookPlatform<Request, Response, never, unknown>,
    request: Request,
    response: Response,
    limit: number,
    declared: string | undefined,
  ): BodyRead | Promise<DeadlineRead> {
    const controller = idle?.pop() ?? new AbortController();
    // A reader that throws instead of rejecting fails the request, as it always did.
    const reading = platform.readBody(request, limit, controller.signal, response);
    if (!(reading instanceof Promise)) {
      // Taken from the pool just now (or the pool was empty): it has room for it.
      idle?.push(controller);
      return reading;
    }
    return new Promise<DeadlineRead>((resolve) => {
      let done = false;
      const passed = () => {
        if (done) return;
        done = true;
        resolve(timeout);
        controller.abort();
      };
      const handle = shared ? shared.start(passed) : timers.setTimeout(passed, ms);
      /**
       * The read ended; unless its deadline passed first, its timer is cancelled, its signal
       * kept for another, and its end read: bytes (a view, or a Fetch `ArrayBuffer`) are the
       * body only when as long as `declared`, the Content-Length (a server's parser holds a
       * body to it, but can end early); a read the reader decided is as it is.
       */
      const ended = (value: Uint8Array | ArrayBuffer | BodyRead) => {
        if (done) return;
        done = true;
        if (shared) shared.cancel(handle as PendingTimer);
        else timers.clearTimeout(handle);
        if (idle && idle.length < POOL_LIMIT) idle.push(controller);
        let read: BodyRead;
        if ('kind' in value) read = value;
        else {
          const bytes = ArrayBuffer.isView(value) ? value : new Uint8Array(value);
          const whole =
            declared === undefined ||
            !/^\d+$/.test(declared) ||
            bytes.byteLength === Number(declared);
          read = whole ? { kind: 'bytes', bytes } : UNREADABLE_BODY;
        }
        if (read.kind === 'bytes') platform.spent?.(request, read.bytes);
        resolve(read);
      };
      reading.then(ended, (error: unknown) => ended(failedRead(error)));
    });
  };
}

/** A rejected read by raw-body's error types (`error.type`), the ones body-parser users know. */
function failedRead(error: unknown): BodyRead {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return { kind: 'too-large' };
  if (type === 'request.size.invalid') return SIZE_MISMATCH_BODY;
  if (type === 'request.aborted') return ABORTED_BODY;
  return UNREADABLE_BODY;
}

/** Cloudflare Workers (workerd) announce themselves in `navigator.userAgent`. */
function isWorkers(): boolean {
  return (
    (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ===
    'Cloudflare-Workers'
  );
}
