import type { Receiver } from '../receiver/create-receiver.js';
import { errorResponse, type ReceiverResponse } from '../receiver/http-response.js';
import { payloadTooLarge } from '../receiver/receive-webhook.js';
import { receiverInternals } from '../receiver/receiver-internals.js';
import type { DeadlineRead } from './body-deadline.js';

// Hints are fixed sentences chosen by adapters; the cap only guards against a misuse.
const MAX_HINTS_LOGGED = 64;
const hintsLogged = new WeakMap<Receiver, Set<string>>();

/** Logs a mount-order fix once per Receiver: it is a setup mistake, not a per-request event. */
function logOnce(receiver: Receiver, message: string): void {
  const logged = hintsLogged.get(receiver) ?? new Set<string>();
  hintsLogged.set(receiver, logged);
  if (logged.has(message) || logged.size >= MAX_HINTS_LOGGED) return;
  logged.add(message);
  receiverInternals(receiver)?.log.error(message);
}

/**
 * The answer to a body the pipeline could not hand to the Receiver: too large (`413`), a
 * body a parser consumed before the adapter ran (`500 raw_body_unavailable`, the hint says
 * how to fix the mount order and is logged once), a body that ended early or was aborted
 * (`400 body_unreadable`), or one that took longer than `bodyTimeoutMs` (`408`).
 */
export function refusalAnswer(
  read: Exclude<DeadlineRead, { kind: 'bytes' }>,
  receiver: Receiver,
  bodyTimeoutMs: number,
): ReceiverResponse {
  switch (read.kind) {
    case 'too-large':
      return payloadTooLarge(receiver.maxBodyBytes);
    case 'unavailable': {
      const message = `The raw request body is not available, so its signature cannot be checked. ${read.hint}`;
      logOnce(receiver, message);
      receiverInternals(receiver)?.activity.record('raw_body_unavailable');
      return errorResponse(500, 'raw_body_unavailable', message);
    }
    case 'unreadable':
      return errorResponse(400, 'body_unreadable', read.reason);
    case 'timeout':
      return errorResponse(
        408,
        'body_timeout',
        `The request body did not arrive within ${bodyTimeoutMs} ms (bodyTimeoutMs), so nothing was verified. Send the whole body promptly; a sender that retries will be accepted.`,
      );
  }
}
