import type { BodyRead } from './body-read.js';
import type { Timers } from './timers.js';

export type DeadlineRead = BodyRead | { kind: 'timeout' };

/**
 * Runs `read` and gives up on it after `ms`: a sender that trickles a body (or stops
 * sending) must not hold the request, and its buffered bytes, for the server's whole
 * request timeout. On the deadline the signal aborts, so the reader can stop.
 */
export async function readWithDeadline(
  read: (signal: AbortSignal) => Promise<BodyRead>,
  ms: number,
  timers: Timers,
): Promise<DeadlineRead> {
  const controller = new AbortController();
  let handle: unknown;
  const deadline = new Promise<DeadlineRead>((resolve) => {
    handle = timers.setTimeout(() => {
      resolve({ kind: 'timeout' });
      controller.abort();
    }, ms);
  });
  const reading = read(controller.signal).catch(
    (): BodyRead => ({ kind: 'unreadable', reason: 'The request body could not be read.' }),
  );
  try {
    return await Promise.race([reading, deadline]);
  } finally {
    timers.clearTimeout(handle);
  }
}
