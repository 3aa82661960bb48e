import type { VerificationPayload } from './types.js';

/** The service's signed image links expire 15 minutes after they are issued. */
export const IMAGE_URL_LIFETIME_MS: number = 15 * 60 * 1000;

/**
 * Whether an event's `data.frontImageUrl` can still be fetched:
 * - `live`: the link is there, valid until `expiresAt` (15 minutes after faceverify received
 *   the result; the service issued it no later);
 * - `expired`: its 15 minutes had passed when the event was built (a retry after a handler
 *   failed for a while, a dead letter delivered again hours later), so `data.frontImageUrl` is
 *   `''`: a dead link is never handed over as if it worked;
 * - `removed`: the store no longer held it, although its 15 minutes had not passed: a result
 *   given up (a dead letter) keeps no link, so one delivered again soon after has none.
 *
 * `receiver.confirm(sessionToken)` asks the service for a fresh result, with a fresh link,
 * while it still knows the session.
 */
export type FrontImageState =
  | { state: 'live'; expiresAt: Date }
  | { state: 'expired'; expiredAt: Date }
  | { state: 'removed' };

/**
 * The payload handlers get for a result received at `receivedAt`, seen at `now`, and the state
 * of its image link: past its lifetime, the link is removed (the signed query in it is a
 * credential, of no use once dead), and the state says so.
 */
export function withImageLifetime(
  payload: VerificationPayload,
  receivedAt: number,
  now: number,
): { data: VerificationPayload; frontImage: FrontImageState } {
  const end = receivedAt + IMAGE_URL_LIFETIME_MS;
  // Dead from its end on, as `imageLinkLiveAt` says.
  if (now >= end) {
    return {
      data: { ...payload, frontImageUrl: '' },
      frontImage: { state: 'expired', expiredAt: new Date(end) },
    };
  }
  if (payload.frontImageUrl === '') return { data: payload, frontImage: { state: 'removed' } };
  return { data: payload, frontImage: { state: 'live', expiresAt: new Date(end) } };
}

/** Whether the link of a result received at `receivedAt` still works at `at`. */
export function imageLinkLiveAt(receivedAt: number, at: number): boolean {
  return at < receivedAt + IMAGE_URL_LIFETIME_MS;
}
