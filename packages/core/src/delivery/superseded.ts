import { isUnmatchedKey } from '../store/record-keys.js';
import { storedKeyOf } from '../store/sealed/stored-key.js';
import type { TrackedSession } from '../store/store.js';
import type { DeliveryContext } from './delivery-context.js';

/**
 * Closed records of a user looked at for a newer session, after every open one: the most
 * recently closed, as `findByUser` lists them (the webhook's own lookup reads as many).
 */
const RECENT_CLOSED_CONSIDERED = 20;

/** What telling a superseded result works with: the store on its clock, and its bound per user. */
export type SupersededContext = Pick<DeliveryContext, 'store' | 'now' | 'maxOpenPerUser'>;

/**
 * Whether a record is a tracked session's, started by `startVerification` or `track`: every
 * record but a delivery matched to no session (`webhook:<digest>`), whose `createdAt` is when
 * its webhook arrived, no session's start. A dead letter, which no longer holds its token, is
 * still its session's.
 */
export function isSessionRecord(record: TrackedSession): boolean {
  return !isUnmatchedKey(storedKeyOf(record));
}

/**
 * Whether `records` of `session`'s user (of its account: `findByUser` lists no other's) hold a
 * session started after it. A result matched to no session is never superseded: it has no start
 * to compare.
 */
export function hasNewerSession(
  session: TrackedSession,
  records: readonly TrackedSession[],
): boolean {
  if (!isSessionRecord(session)) return false;
  return records.some((record) => record.createdAt > session.createdAt && isSessionRecord(record));
}

/**
 * Whether `session`'s user has started a newer session, from the user's records the caller
 * already read (a webhook's correlation read them), or else from one light store call
 * (`hasNewerSession`: any newer session kept, under every form the user is stored in, nothing
 * read back), or, on a store without it, one lookup: every open record, then the most recently
 * closed. A rejection is a store failure like any other.
 */
export function isSuperseded(
  context: SupersededContext,
  session: TrackedSession,
  userRecords?: readonly TrackedSession[],
): boolean | Promise<boolean> {
  if (!isSessionRecord(session)) return false;
  if (userRecords) return hasNewerSession(session, userRecords);
  const { store } = context;
  if (store.hasNewerSessionOfUser) {
    return store.hasNewerSessionOfUser({
      externalUserId: session.externalUserId,
      account: session.account,
      createdAfter: session.createdAt,
      now: context.now(),
    });
  }
  return store
    .findByUser({
      externalUserId: session.externalUserId,
      account: session.account,
      now: context.now(),
      limit: context.maxOpenPerUser + RECENT_CLOSED_CONSIDERED,
    })
    .then((records) => hasNewerSession(session, records));
}
