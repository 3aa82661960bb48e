import type { AccountDirectory } from '../accounts/account-directory.js';
import { checkAccountId } from '../accounts/account-id.js';
import { accountScope } from '../accounts/account-scope.js';
import type { Log } from '../base/logging/logger.js';
import { checkExternalUserId } from '../client/external-user-id.js';
import { deriveTokenKey, tokenKeySecrets } from '../store/sealed/token-keys.js';
import type { TokenProtectingStore } from '../store/sealed/token-protecting-store.js';
import type { RefusedBodies } from './refused-bodies.js';

/** What `receiver.forgetUser` removed. */
export interface ForgottenUser {
  /**
   * Records of the user removed from the store: sessions open or closed, results waiting
   * for delivery, dead letters. 0 when the store held none (a second call, or an unknown id).
   */
  removed: number;
}

/** Options of `receiver.forgetUser()`. */
export interface ForgetUserScope {
  /** On a Receiver of several accounts (required there): the account the user is of. */
  account?: string;
}

/** What erasure works with: the store, the clock leases follow, and what this process holds. */
export interface ErasureContext {
  store: Pick<TokenProtectingStore, 'forgetUser'>;
  /** The accounts of a Receiver of several: a user is then always a user of one account. */
  accounts: AccountDirectory | undefined;
  now(): number;
  clockReady(): Promise<void> | undefined;
  refusedBodies: RefusedBodies;
  log: Log;
}

/**
 * Erasure of one user (an erasure request for special-category data): every record of the
 * user goes from the store in one atomic step (`Store.forgetUser`), and from what this process
 * remembers of refused bodies. The id is checked as `track()` checks it, so an id no store
 * holds is refused rather than matched to another; neither the id nor anything of the user's
 * is logged or put in an error.
 */
export async function forgetUser(
  context: ErasureContext,
  externalUserId: string,
  options: ForgetUserScope = {},
): Promise<ForgottenUser> {
  checkExternalUserId(externalUserId, 'forgetUser()');
  const account = accountScope(context, options.account, 'forgetUser()');
  const waiting = context.clockReady();
  if (waiting) await waiting;
  const removed = await context.store.forgetUser({ externalUserId, account, now: context.now() });
  context.refusedBodies.forget(externalUserId, account);
  context.log.notice("A user's records were erased.", { removed });
  return { removed };
}

/**
 * Throws the `TypeError` `receiver.forgetUser(externalUserId, { account })` throws for an id
 * no store holds (a NUL, a lone surrogate, too long) or an account id that is not one, before
 * anything is looked up; neither is repeated in the message. A tool that inspects the store
 * before it erases refuses a request it could never carry out first.
 */
export function checkErasureRequest(externalUserId: string, account?: string): void {
  checkExternalUserId(externalUserId, 'forgetUser()');
  if (account !== undefined) checkAccountId(account, 'forgetUser()');
}

/** The keys `tokenKeyIds` derives ids from, as a Receiver is given them. */
export interface TokenKeySources {
  /** The webhook signing secrets (`secret`); none on a Receiver of several accounts. */
  secrets?: readonly string[];
  /** The dedicated token keys (`tokenKeys`), when set. */
  tokenKeys?: readonly string[];
}

/**
 * The public ids of the token keys a Receiver given `sources` keys records with, in its order:
 * the first hashes the user ids of records it inserts, and every one is tried by
 * `forgetUser`. Each sealed text in a store begins with the id of the first key it was sealed
 * under (`fvt2.<key id>.…`, or `fvt1.` before): a record whose id is none of these was keyed by another
 * configuration, whose user hashes `forgetUser` cannot match. Ids only: a key id is derived
 * one way from its key, and tells nothing of it. A token key too short is refused as
 * `createReceiver` refuses it, naming `source`.
 *
 * @example
 * const ids = await tokenKeyIds({ secrets: [process.env.FACEVERIFY_WEBHOOK_SECRET!] });
 */
export async function tokenKeyIds(
  sources: TokenKeySources,
  source = '`tokenKeys`',
): Promise<string[]> {
  const { secrets } = tokenKeySecrets(sources.tokenKeys, sources.secrets ?? [], source);
  const keys = await Promise.all(secrets.map(deriveTokenKey));
  return keys.map((key) => key.id);
}

/**
 * The start of one stored record's fields, as the store holds them: enough to tell, without
 * opening anything, which key keyed the record (the id after the prefix of a sealed text) and
 * whether its user id is a keyed hash (`u1:<hash>[.<account>]`) or one written in clear before
 * ids were hashed.
 */
export interface StoredRecordHead {
  /** The stored user id: `u1:<keyed hash>[.<account>]`, or the id in clear on an older record. */
  user: string;
  /** The stored token (`fvt1.<key id>.…` once sealed); a closed record keeps none. */
  token: string | undefined;
  /** The stored result's JSON text (`{"sealed":"fvr1.<key id>.…"}`), when it holds one. */
  result: string | undefined;
}

/**
 * What a store's read-only count found: whether any of its data is where the store was told
 * to look (a wrong prefix or schema finds none), and its records counted by the class that
 * the caller's `classify` gave each.
 */
export interface StoredRecordsCount {
  /** Whether any data of the store is there; false for a wrong prefix or schema. */
  found: boolean;
  /** How many records `classify` put in each class; classes of no record are absent. */
  counts: Map<string, number>;
}
