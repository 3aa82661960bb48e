import { UNMATCHED_PREFIX } from '../store/record-keys.js';
import type {
  AttachOutcome,
  AttachResultOptions,
  CountsOptions,
  DeadLetterOptions,
  DeadLetterPage,
  DueSummary,
  DueSummaryOptions,
  FindByUserOptions,
  ForgetOptions,
  ForgetUserOptions,
  GetOptions,
  InsertOptions,
  InsertOutcome,
  LeaseDueOptions,
  LeaseOptions,
  ListDeadLettersOptions,
  RememberOptions,
  SettledWith,
  SettleOptions,
  Store,
  TrackedSession,
  TrackedState,
  TransactionalStore,
} from '../store/store.js';
import { isTransactional } from '../store/store.js';
import { type StoreAlarmListener, StoreAlarmListeners } from '../store/store-alarm.js';
import { isSealed, openToken, sealedKeyIds, sealToken } from './sealed-token.js';
import type { RevealedSession } from './stored-key.js';
import { deriveTokenKey, RECORD_KEY_PREFIX, recordKeyOf, type TokenKey } from './token-keys.js';

/**
 * Keeps hosted session tokens out of a Store, decided here once for every store: the
 * Receiver speaks in tokens, the store only ever sees
 * - records keyed by a keyed hash of the token (`t1:<HMAC-SHA256>`), and
 * - the token sealed with AES-256-GCM (`fvt1.<key id>.…`, the record key as associated
 *   data), which the store drops when the record closes.
 *
 * Keys come from secrets the store never holds, newest first: the first keys new records and
 * every one is tried on lookup; a token is sealed under every key, so any instance that shares
 * one key with this one opens it, whichever step of a rotation each instance runs.
 *
 * A record whose token no configured key opens (its keys were removed everywhere too soon, or
 * an instance runs a configuration this one never had) is handed over as it is stored, marked
 * `unreadableToken`, and raised as a `token_key_missing` alarm: the Receiver leaves it for an
 * instance that can open it, and never expires or delivers it.
 *
 * Records written before tokens were protected (keyed by the token itself) are still found:
 * a lookup that misses every hashed key tries the token as it is, until those records close
 * and their retention ends.
 */
/** A key the store already uses as it is: a delivery's digest, or a token's hash. */
const isStoredKey = (key: string) =>
  key.startsWith(UNMATCHED_PREFIX) || key.startsWith(RECORD_KEY_PREFIX);

/** Whether a stored record holds a sealed token to open. */
const isConcealed = (record: TrackedSession) =>
  record.token !== undefined && isSealed(record.token);

/** Entries each cache below keeps; cleared when full, as tokens are short-lived. */
const CACHE_LIMIT = 4096;

/** How often one missing key is raised again while it stays missing: the alarms' window. */
const MISSING_KEY_WINDOW_MS = 15 * 60_000;

function cacheEntry<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

export class TokenProtectingStore implements Store {
  private keys: Promise<TokenKey[]> | undefined;
  // One webhook reads a record several times (find, lease, settle): each token is hashed and
  // each sealed text opened once per process, not at every read. Both hold what this process
  // already holds while it works on the session, and nothing a store dump reveals.
  private readonly recordKeys = new Map<string, string[]>();
  private readonly opened = new Map<string, string>();
  // The stored key a token's record was last read under, tried first by the next call: a
  // record sealed under an older key, or written before tokens were protected, is then
  // leased and settled in one store call, not in one per key listed before its own.
  private readonly foundUnder = new Map<string, string>();
  private readonly alarms = new StoreAlarmListeners();
  // When each set of missing key ids was last raised: once per window, not once per read.
  private readonly missingRaisedAt = new Map<string, number>();
  /** The inner store's notices, with the keys it stores (see `keysOf`). */
  readonly watchClosed?: (listener: (storedKey: string) => void) => () => void;
  readonly settleWith?: TransactionalStore['settleWith'];

  /**
   * @param inner The store that keeps the records.
   * @param secrets Secrets the token keys are derived from, newest first.
   * @param now The Receiver's clock, for how often a missing key is raised again.
   */
  constructor(
    private readonly inner: Store,
    private readonly secrets: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    if (inner.watchClosed) this.watchClosed = (listener) => inner.watchClosed!(listener);
    if (isTransactional(inner)) {
      this.settleWith = (options, work) =>
        this.firstHit(
          options.key,
          (key) => inner.settleWith({ ...options, key }, work),
          notSettled,
        );
    }
  }

  /** The inner store's alarms, and `token_key_missing` of this one. */
  onAlarm(listener: StoreAlarmListener): () => void {
    const fromInner = this.inner.onAlarm?.(listener);
    const fromThis = this.alarms.subscribe(listener);
    return () => {
      fromInner?.();
      fromThis();
    };
  }

  insert(options: InsertOptions): Promise<InsertOutcome> {
    // A delivery matched to no session (every webhook of a webhook-only Receiver) has no
    // token: it goes through as it is, without a promise of its own.
    if (options.record.key.startsWith(UNMATCHED_PREFIX)) {
      return this.inner.insert(options).then(this.revealDisplaced);
    }
    return this.conceal(options.record).then((record) =>
      this.inner.insert({ ...options, record }).then(this.revealDisplaced),
    );
  }

  private readonly revealDisplaced = (
    outcome: InsertOutcome,
  ): InsertOutcome | Promise<InsertOutcome> => {
    const revealing = this.revealAll(outcome.displaced);
    return Array.isArray(revealing)
      ? outcome
      : revealing.then((displaced) => ({ ...outcome, displaced }));
  };

  async get(options: GetOptions): Promise<TrackedSession | undefined> {
    return this.findFirst(options.key, (key) => this.inner.get({ ...options, key }));
  }

  findByUser(options: FindByUserOptions): Promise<TrackedSession[]> {
    return this.inner.findByUser(options).then((records) => this.revealAll(records));
  }

  remember(options: RememberOptions): Promise<boolean> {
    return this.inner.remember(options);
  }

  forget(options: ForgetOptions): Promise<void> {
    return this.inner.forget(options);
  }

  attachResult(options: AttachResultOptions): Promise<AttachOutcome> {
    return this.firstHit(
      options.key,
      (key) => this.inner.attachResult({ ...options, key }),
      (outcome) => outcome === 'missing',
    );
  }

  async lease(options: LeaseOptions): Promise<TrackedSession | undefined> {
    return this.findFirst(options.key, (key) => this.inner.lease({ ...options, key }));
  }

  async leaseDue(options: LeaseDueOptions): Promise<TrackedSession[]> {
    return this.revealAll(await this.inner.leaseDue(options));
  }

  settle(options: SettleOptions): Promise<boolean> {
    if (isStoredKey(options.key)) return this.inner.settle(options);
    return this.firstHit(
      options.key,
      (key) => this.inner.settle({ ...options, key }),
      (settled) => !settled,
    );
  }

  counts(options: CountsOptions): Promise<Record<TrackedState, number>> {
    return this.inner.counts(options);
  }

  /** Dead letters are closed: listed by their stored key, which redelivers or discards them. */
  listDeadLetters(options: ListDeadLettersOptions): Promise<DeadLetterPage> {
    return this.inner.listDeadLetters(options);
  }

  redeliverDeadLetter(options: DeadLetterOptions): Promise<boolean> {
    return this.firstHit(
      options.key,
      (key) => this.inner.redeliverDeadLetter({ ...options, key }),
      (done) => !done,
    );
  }

  discardDeadLetter(options: DeadLetterOptions): Promise<boolean> {
    return this.firstHit(
      options.key,
      (key) => this.inner.discardDeadLetter({ ...options, key }),
      (done) => !done,
    );
  }

  dueSummary(options: DueSummaryOptions): Promise<DueSummary> {
    return this.inner.dueSummary(options);
  }

  /** Erasure: the inner store removes the user's records, under the id as they store it. */
  forgetUser(options: ForgetUserOptions): Promise<number> {
    return this.inner.forgetUser({
      ...options,
      externalUserId: this.storedUserId(options.externalUserId),
    });
  }

  /**
   * The user id as the inner store holds it. For now the id is stored as given (the
   * identity); the one place to change when records hold it in another form.
   */
  private storedUserId(externalUserId: string): string {
    return externalUserId;
  }

  /** Every key a record of `token` may be stored under, as `watchClosed` names them. */
  keysOf(token: string): Promise<string[]> {
    return this.storedKeys(token);
  }

  private tokenKeys(): Promise<TokenKey[]> {
    this.keys ??= Promise.all(this.secrets.map(deriveTokenKey));
    return this.keys;
  }

  /**
   * Where a record of `key` may be stored: under each configured key's hash of the token,
   * then under the token itself (a record written before tokens were protected, or one whose
   * token could not be opened and is known by its stored key). Deliveries matched to no
   * session are keyed by a digest, no secret, and stored as they are.
   */
  private async storedKeys(key: string): Promise<string[]> {
    if (isStoredKey(key)) return [key];
    const known = this.recordKeys.get(key);
    if (known) return known;
    const keys = await this.tokenKeys();
    const hashed = await Promise.all(keys.map((tokenKey) => recordKeyOf(tokenKey, key)));
    return cacheEntry(this.recordKeys, key, [...hashed, key]);
  }

  /** `call` under each stored key in turn until `missed` says it found the record. */
  private firstHit<T>(
    key: string,
    call: (storedKey: string) => Promise<T>,
    missed: (outcome: T) => boolean,
  ): Promise<T> {
    // A key stored as it is (a delivery's digest) is one call, with no promise of its own.
    return isStoredKey(key) ? call(key) : this.firstHitOfToken(key, call, missed);
  }

  private async firstHitOfToken<T>(
    key: string,
    call: (storedKey: string) => Promise<T>,
    missed: (outcome: T) => boolean,
  ): Promise<T> {
    const hint = this.foundUnder.get(key);
    let outcome: T | undefined;
    if (hint !== undefined) {
      outcome = await call(hint);
      if (!missed(outcome)) return outcome;
    }
    const candidates = await this.storedKeys(key);
    for (const candidate of candidates) {
      if (candidate === hint) continue;
      outcome = await call(candidate);
      if (!missed(outcome)) {
        if (candidate !== candidates[0]) cacheEntry(this.foundUnder, key, candidate);
        return outcome;
      }
    }
    // A miss under every key (at least two were tried: a hashed one and the token).
    return outcome as T;
  }

  /** The first record found under a stored key of `key`, as the Receiver knows it. */
  private async findFirst(
    key: string,
    call: (storedKey: string) => Promise<TrackedSession | undefined>,
  ): Promise<TrackedSession | undefined> {
    const record = await this.firstHit(key, call, (found) => found === undefined);
    if (!record) return undefined;
    // Found through this token: a closed record, whose sealed token is gone, is still its.
    if (record.token === undefined && !isStoredKey(key)) {
      return { ...record, key, token: key, storedKey: record.key } as RevealedSession;
    }
    return isConcealed(record) ? this.reveal(record) : record;
  }

  private async conceal(record: TrackedSession): Promise<TrackedSession> {
    if (record.key.startsWith(UNMATCHED_PREFIX)) return record;
    const keys = await this.tokenKeys();
    const key = await recordKeyOf(keys[0]!, record.key);
    const { token, ...rest } = record;
    return {
      ...rest,
      key,
      ...(token === undefined ? {} : { token: await sealToken(uniqueById(keys), token, key) }),
    };
  }

  /** Records as the Receiver knows them; each one's stored key is kept for later calls. */
  private revealAll(records: TrackedSession[]): TrackedSession[] | Promise<TrackedSession[]> {
    for (const record of records) {
      // Written before tokens were protected: stored under the token itself.
      if (record.token !== undefined && record.token === record.key) {
        cacheEntry(this.foundUnder, record.key, record.key);
      }
    }
    return records.some(isConcealed)
      ? Promise.all(records.map((record) => this.reveal(record)))
      : records;
  }

  /** A stored record with its token opened and the token as its key. */
  private async reveal(record: TrackedSession): Promise<TrackedSession> {
    if (record.token === undefined || !isSealed(record.token)) return record;
    const cacheKey = `${record.key}\n${record.token}`;
    const token =
      this.opened.get(cacheKey) ??
      (await openToken(await this.tokenKeys(), record.token, record.key));
    if (token !== undefined) cacheEntry(this.opened, cacheKey, token);
    if (token === undefined) {
      const keyIds = sealedKeyIds(record.token);
      this.raiseMissing(keyIds);
      const { token: _sealed, ...rest } = record;
      return { ...rest, unreadableToken: { keyIds } };
    }
    cacheEntry(this.foundUnder, token, record.key);
    return { ...record, key: token, token, storedKey: record.key } as RevealedSession;
  }

  /** Raises `token_key_missing` for these key ids, at most once per window. */
  private raiseMissing(keyIds: string[]): void {
    const ids = keyIds.join(', ');
    const now = this.now();
    const last = this.missingRaisedAt.get(ids);
    if (last !== undefined && now - last < MISSING_KEY_WINDOW_MS) return;
    this.missingRaisedAt.set(ids, now);
    this.alarms.raise(
      'token_key_missing',
      `A session in the store has its token sealed under token key ${ids}, and this instance lists none of them, so it leaves that session to an instance that does: it neither polls, delivers nor expires it. During a rolling change this passes once every instance runs the new configuration. If no instance lists the key any more, it was removed too soon: list the secret (FACEVERIFY_WEBHOOK_SECRET) or token key (FACEVERIFY_TOKEN_KEYS) again, last in the list, until sessions started before the change have closed (see "Session tokens at rest" in docs/polling-and-stores.md).`,
    );
  }
}

/** One key per id: the same secret listed twice (as a token key and a signing secret) seals once. */
function uniqueById(keys: readonly TokenKey[]): TokenKey[] {
  return keys.filter((key, index) => keys.findIndex((other) => other.id === key.id) === index);
}

function notSettled<T>(outcome: SettledWith<T>): boolean {
  return !outcome.settled;
}
