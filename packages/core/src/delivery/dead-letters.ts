import { type Clock, systemClock } from '../base/clock/clock.js';
import { isSealedResult, sealedResultKeyIds } from '../store/sealed/sealed-result.js';
import { tokenKeySecrets } from '../store/sealed/token-keys.js';
import { TokenProtectingStore } from '../store/sealed/token-protecting-store.js';
import type { Store, TrackedSession } from '../store/store.js';
import { type FrontImageState, withImageLifetime } from '../wire/payload/front-image-lifetime.js';
import type { VerificationPayload } from '../wire/payload/types.js';

/** A result whose handlers failed on every one of `maxDeliveryAttempts` attempts. */
export interface DeadLetter {
  /**
   * What `redeliver` and `discard` take. The store's key of the record: an HMAC of the
   * session token (`t1:…`), never the token itself, or `webhook:<digest>` for a delivery
   * matched to no session.
   */
  key: string;
  /** The user the result is about (`data.external_user_id`, as the session was started). */
  externalUserId: string;
  /** The account the result is of, on a Receiver of several accounts. */
  account?: string;
  /** Handler runs made before it was given up. */
  attempts: number;
  /** How the result arrived. */
  source: 'webhook' | 'poll';
  /** When the result arrived. */
  receivedAt: Date;
  /**
   * The result itself, as handlers receive it in `event.data`: opened with the token keys (the
   * store holds it sealed), its `frontImageUrl` `''`: a result given up keeps no image link.
   */
  data: VerificationPayload;
  /** `removed` within the link's 15 minutes, `expired` after them: a dead letter keeps none. */
  frontImage: FrontImageState;
}

/** A dead letter whose result no key given opens: only its key, and the keys it needs. */
export interface SealedDeadLetter {
  /** What `redeliver` and `discard` take, as for any dead letter. */
  key: string;
  /** Ids of the token keys it was sealed under: list one of their secrets to open it. */
  keyIds: string[];
}

/** One page of dead letters, oldest first. */
export interface DeadLetterList {
  /** This page's dead letters, the longest given up first. */
  deadLetters: DeadLetter[];
  /**
   * Dead letters of this page whose result none of the keys opens (the keys of the Receiver
   * that sealed them were not given, or were removed since); absent when there are none.
   */
  sealed?: SealedDeadLetter[];
  /** Pass it to `list` for the next page; absent on the last page. */
  cursor?: string;
}

/**
 * The secrets a store's results are sealed with, as the Receiver that wrote them lists them
 * (its `secret` and `tokenKeys`, or `FACEVERIFY_WEBHOOK_SECRET` and `FACEVERIFY_TOKEN_KEYS`).
 */
export interface DeadLetterKeys {
  /** The webhook signing secrets, in the Receiver's order. */
  secrets: readonly string[];
  /** The dedicated token keys, in the Receiver's order, when it has them. */
  tokenKeys?: readonly string[];
}

/** Options of `DeadLetters.list`. */
export interface ListDeadLetterOptions {
  /** At most this many per page. Default 50, at most 1000. */
  limit?: number;
  /** The `cursor` of the previous page. */
  cursor?: string;
  /**
   * Only this account's dead letters (a Receiver of several accounts). The page is filtered
   * after it is read, so it may hold fewer than `limit`: follow `cursor` to the end.
   */
  account?: string;
}

/**
 * Results given up after `maxDeliveryAttempts` failed handler runs (each was passed to the
 * `verification.undeliverable` handlers), kept for the replay window: list them, deliver
 * them again once the handler is fixed, or discard them.
 */
export interface DeadLetters {
  /**
   * A page of dead letters, the longest given up first.
   *
   * @example
   * let page = await receiver.deadLetters.list({ limit: 100 });
   * for (;;) {
   *   for (const letter of page.deadLetters) console.log(letter.key, letter.data.status);
   *   if (!page.cursor) break;
   *   page = await receiver.deadLetters.list({ limit: 100, cursor: page.cursor });
   * }
   */
  list(options?: ListDeadLetterOptions): Promise<DeadLetterList>;
  /**
   * Hands a dead letter back for delivery: the next sweep (of any instance sharing the
   * store) runs the `verification.completed` handlers with its stored result, with
   * `maxDeliveryAttempts` attempts again. Atomic: of concurrent calls for one key, from any
   * process, one resolves `true` and the result is delivered once; the others, and calls for
   * a key that is no dead letter (any more), resolve `false`. The redelivered event has
   * `attempt` 1 and no `sessionToken` (the store no longer holds it).
   *
   * @example
   * if (!(await receiver.deadLetters.redeliver(key))) console.log('not a dead letter (any more)');
   * await receiver.sweep(); // or let receiver.start()'s timer deliver it
   */
  redeliver(key: string): Promise<boolean>;
  /**
   * Removes a dead letter for good: it is neither listed nor delivered again. Atomic as
   * `redeliver`; `false` when `key` is no dead letter (any more).
   *
   * @example
   * await receiver.deadLetters.discard(key);
   */
  discard(key: string): Promise<boolean>;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

/**
 * Dead-letter operations on a store, as `receiver.deadLetters` offers them; for tools that
 * work on the store without a Receiver (the `faceverify dead-letters` command). Results are
 * sealed in the store: pass the Receiver's `keys` to open them; without them (or with keys
 * that do not open one) a dead letter is listed in `sealed`, by its key alone.
 *
 * @example
 * import { createDeadLetters } from '@faceverify/core';
 * const letters = createDeadLetters(new RedisStore({ redis }), undefined, {
 *   secrets: process.env.FACEVERIFY_WEBHOOK_SECRET!.split(','),
 * });
 * const { deadLetters } = await letters.list();
 */
export function createDeadLetters(
  store: Store,
  clock: Clock = systemClock,
  keys?: DeadLetterKeys,
): DeadLetters {
  if (keys && !(store instanceof TokenProtectingStore)) {
    store = new TokenProtectingStore(
      store,
      tokenKeySecrets(keys.tokenKeys, keys.secrets, 'tokenKeys'),
      { now: () => clock.now() },
    );
  }
  return {
    async list({ limit = DEFAULT_LIMIT, cursor, account } = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        throw new RangeError(
          `deadLetters.list: limit must be a whole number from 1 to ${MAX_LIMIT}, got ${limit}; page through more with the cursor.`,
        );
      }
      const page = await store.listDeadLetters({
        now: clock.now(),
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      });
      const now = clock.now();
      const deadLetters: DeadLetter[] = [];
      const sealed: SealedDeadLetter[] = [];
      for (const record of page.records) {
        // A record this process cannot open says no account: listed only when none is asked.
        if (account !== undefined && record.account !== account) continue;
        const keyIds = unopened(record);
        if (keyIds) sealed.push({ key: record.key, keyIds });
        else if (record.result) {
          const { result } = record;
          deadLetters.push({
            key: record.key,
            externalUserId: record.externalUserId,
            ...(record.account === undefined ? {} : { account: record.account }),
            attempts: record.attempts,
            source: result.source,
            receivedAt: new Date(result.receivedAt),
            ...withImageLifetime(result.payload, result.receivedAt, now),
          });
        }
      }
      return {
        deadLetters,
        ...(sealed.length > 0 ? { sealed } : {}),
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      };
    },
    redeliver: (key) => store.redeliverDeadLetter({ key, now: clock.now() }),
    discard: (key) => store.discardDeadLetter({ key, now: clock.now() }),
  };
}

/** The key ids a dead letter's result is sealed under, when it was not opened; else undefined. */
function unopened(record: TrackedSession): string[] | undefined {
  if (record.unreadableToken) return record.unreadableToken.keyIds;
  // Read without keys: the store's own sealed text.
  return isSealedResult(record.result) ? sealedResultKeyIds(record.result!) : undefined;
}
