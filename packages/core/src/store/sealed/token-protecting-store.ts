import type { Clock } from '../../base/clock/clock.js';
import { RecentEntries } from '../../base/recent-entries.js';
import { isUnmatchedKey } from '../record-keys.js';
import type {
  AttachAndLeaseOptions,
  AttachAndLeaseOutcome,
  AttachOutcome,
  AttachResultOptions,
  ClaimStartOutcome,
  CountsOptions,
  DeadLetterOptions,
  DeadLetterPage,
  DueSummary,
  DueSummaryOptions,
  EndStartOptions,
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
  SettleUpdate,
  StartCounter,
  Store,
  StoredResult,
  TrackedSession,
  TrackedState,
  TransactionalStore,
} from '../store.js';
import { isOpen, isTransactional } from '../store.js';
import { type StoreAlarmListener, StoreAlarmListeners } from '../store-alarm.js';
import { Keyring } from './keyring.js';
import { allOf, andThen, type MaybeAsync } from './maybe-async.js';
import {
  isSealedResult,
  openResult,
  type SealedResult,
  sealedResultKeyIds,
  sealedWithoutLink,
  sealResult,
} from './sealed-result.js';
import {
  isSealed,
  type OpenedToken,
  openSealedToken,
  sealedKeyIds,
  sealToken,
} from './sealed-token.js';
import { SlowCalls } from './slow-calls.js';
import { type StartCountOf, startCountKeyOf, startKeyOf } from './start-keys.js';
import type { RevealedSession } from './stored-key.js';
import { deriveTokenKey, RECORD_KEY_PREFIX, recordKeyOf, type TokenSecrets } from './token-keys.js';
import { accountOfStoredUser, isHashedUser, userKeyOf } from './user-keys.js';

/** A key the store already uses as it is: a delivery's digest, or a token's hash. */
const isStoredKey = (key: string) => isUnmatchedKey(key) || key.startsWith(RECORD_KEY_PREFIX);

/** Whether a stored record holds anything sealed or hashed to open before the Receiver sees it. */
const isConcealed = (record: TrackedSession) =>
  (record.token !== undefined && isSealed(record.token)) ||
  isSealedResult(record.result) ||
  isHashedUser(record.externalUserId);

/**
 * Calls that name a user take the account the user is of, on a Receiver of several accounts:
 * the same user id in two accounts is two users.
 */
export interface AccountScope {
  account?: string | undefined;
}

/** How a `TokenProtectingStore` reads its clock, and what it still looks for by user. */
export interface TokenProtectionOptions {
  /** The Receiver's clock, for how often a missing key is raised again. */
  now?: () => number;
  /**
   * Also look each user up under the id in clear, as records written before user ids were
   * hashed hold it (`createReceiver({ lookUpClearUserIds })`): one more store lookup per
   * webhook, for one replay window after upgrading. Erasure always removes those records.
   */
  lookUpClearUserIds?: boolean;
}

/** What `TokenProtectingStore.hasNewerSessionOfUser` takes: the user as the Receiver knows it. */
export interface NewerSessionOptions extends AccountScope {
  externalUserId: string;
  createdAfter: number;
  now: number;
}

/** A count of starts as the Receiver names it: whose, and which period (see `StartCounter`). */
export interface StartCount extends Omit<StartCounter, 'key'> {
  of: 'user' | 'account';
  /** The period counted in, as the Receiver names it (`2026-11-29`, `2026-11-29T08`). */
  period: string;
}

/** What `TokenProtectingStore.claimSessionStart` takes: the start named as the Receiver knows it. */
export interface StartClaimOptions extends AccountScope {
  externalUserId: string;
  /** The need, as the app names it; `''` for the default one. */
  purpose: string;
  owner: string;
  now: number;
  claimMs: number;
  reuseMinLifetimeMs?: number;
  counts: readonly StartCount[];
}

/** `Store.claimStart`'s outcome with the record opened, and the start's key for later calls. */
export type StartClaimed = ClaimStartOutcome & { startKey: string };

/**
 * Entries each cache below keeps. A full cache drops its oldest entry for each new one
 * (`RecentEntries`), so what it holds stays level: emptied at once when full, the caches of a
 * busy process went up and down by tens of MiB.
 */
const CACHE_LIMIT = 4096;

/**
 * Opened results kept: each entry holds a whole result twice (sealed and opened), kilobytes,
 * and a result is read again only by a lookup of the same user soon after.
 */
const OPENED_RESULTS_LIMIT = 256;

/** Stored keys noted per stored user id, for `findByUser`'s hint. */
const MAX_KEYS_PER_USER = 32;

/** How often one missing key is raised again while it stays missing: the alarms' window. */
const MISSING_KEY_WINDOW_MS = 15 * 60_000;

/** What a sealed text stored under a key opened to. */
interface Opened<T> {
  sealed: string;
  value: T;
}

/** What `sealed`, stored under `storedKey`, opened to before, if this cache holds it. */
function openedFrom<T>(
  cache: RecentEntries<string, Opened<T>>,
  storedKey: string,
  sealed: string,
): T | undefined {
  const entry = cache.get(storedKey);
  return entry?.sealed === sealed ? entry.value : undefined;
}

/**
 * The one object between the Receiver and its store. It keeps hosted session tokens and
 * biometric results out of the store, decided here once for every store (the Receiver speaks
 * in tokens, user ids and results; the store only ever sees
 * - records keyed by a keyed hash of the token (`t1:<HMAC-SHA256>`),
 * - the token sealed with AES-256-GCM (`fvt2.…`, see sealed-token.ts), with the user's id
 *   inside, which the store drops when the record closes,
 * - the user's id as a keyed hash (`u1:<HMAC-SHA256>`), which it indexes on as before, and
 * - the result sealed whole (`{"sealed":"fvr2.…"}`, see sealed-result.ts), which it only ever
 *   tests for presence),
 * and, once `watch` is called, it reports a call the store leaves unanswered too long.
 * What the Receiver gets back has all of them opened: the token as the key, the user's id from
 * the sealed token, the result or the lookup that found it, and the result as it was given.
 *
 * Keys come from secrets the store never holds: the first keys new records (and hashes user
 * ids) and every one is tried on lookup; each text is sealed once, under a data key wrapped
 * under every sealing key (see `Keyring`), so any instance that shares one sealing key with
 * this one opens it, whichever step of a rotation each instance runs.
 *
 * Hashing and sealing are synchronous where the runtime's crypto is (node:crypto): a call then
 * makes no promise but the store's own, and the async methods below await only the store.
 *
 * A record whose token no configured key opens (its keys were removed everywhere too soon, or
 * an instance runs a configuration this one never had) is handed over as it is stored, marked
 * `unreadableToken`, and raised as a `token_key_missing` alarm: the Receiver leaves it for an
 * instance that can open it, and never expires or delivers it.
 *
 * Records written before tokens were protected (keyed by the token itself) are still found:
 * a lookup that misses every hashed key tries the token as it is, until those records close
 * and their retention ends. Records written before user ids were hashed are found by user only
 * with `lookUpClearUserIds` (see `TokenProtectionOptions`).
 */
export class TokenProtectingStore implements Store {
  private keyring: Keyring | undefined;
  private readonly keyringReady: Promise<Keyring>;
  private readonly now: () => number;
  private readonly lookUpClearUserIds: boolean;
  private slowCalls: SlowCalls | undefined;
  // One webhook reads a record several times (find, lease, settle): each token and user id is
  // hashed and each sealed token opened once per process, not at every read. They hold what
  // this process already holds while it works on the session, and nothing a store dump reveals.
  private readonly recordKeys = new RecentEntries<string, string[]>(CACHE_LIMIT);
  private readonly userKeys = new RecentEntries<string, string[]>(CACHE_LIMIT);
  // Both caches below are keyed by the stored key, and hold the sealed text they opened: a
  // sealed result is kilobytes long, and hashing it for a key at every read cost more than
  // comparing it with the one held.
  private readonly opened = new RecentEntries<string, Opened<OpenedToken>>(CACHE_LIMIT);
  // Each webhook's lookup by user reads the user's recent records again, each with its sealed
  // result: opened once per process, not at every lookup. Results this process delivers or
  // compares, kept only while the cache has room.
  private readonly openedResults = new RecentEntries<string, Opened<StoredResult>>(
    OPENED_RESULTS_LIMIT,
  );
  // Results of the records a sweep leased, until they are settled: the settle gives back the
  // result delivered without its image link, whose sealed form is the stored one with the
  // link's part left out. A sweep leases a batch larger than the cache above holds, and each
  // settle would otherwise seal its result again (AES-GCM, once per record swept).
  private readonly leasedResults = new RecentEntries<string, Opened<StoredResult>>(CACHE_LIMIT);
  // A result this wrapper sealed or opened, with its sealed form: the same result given back
  // (a delivery settles with the result it leased; a webhook settles with the one it attached)
  // is not sealed again for nothing, as a store keeps the first result anyway.
  private readonly sealedForms = new WeakMap<
    StoredResult,
    { storedKey: string; sealed: StoredResult }
  >();
  // The stored key a token's record was last read under, tried first by the next call: a
  // record sealed under an older key, or written before tokens were protected, is then
  // leased and settled in one store call, not in one per key listed before its own.
  private readonly foundUnder = new RecentEntries<string, string>(CACHE_LIMIT);
  private readonly alarms = new StoreAlarmListeners();
  // When each set of missing key ids was last raised: once per window, not once per read.
  private readonly missingRaisedAt = new Map<string, number>();
  // What the inner store said of the records it handed over or was given, for the hints of
  // later calls (`RecordUserHint`, `FindByUserOptions.keys`): the user id each stored key is
  // held under, and the stored keys of each stored user id. Hints only: a stale entry costs
  // the inner store a run more, never a wrong outcome.
  private readonly userOfRecord = new RecentEntries<string, string>(CACHE_LIMIT);
  private readonly recordsOfUser = new RecentEntries<string, string[]>(CACHE_LIMIT);
  /** The inner store's notices, with the keys it stores (see `keysOf`). */
  readonly watchClosed?: (listener: (storedKey: string) => void) => () => void;
  /** Not watched: it runs the handlers in its transaction, for as long as they take. */
  readonly settleWith?: TransactionalStore['settleWith'];
  readonly attachAndLease?: (options: AttachAndLeaseOptions) => Promise<AttachAndLeaseOutcome>;
  /**
   * Whether the user has a session started after `createdAfter` still kept, in one inner
   * `hasNewerSession` under every form a user's session is stored in (each sealing key's hash,
   * so during a rotation too, and the id in clear as `findByUser` looks it up), nothing opened.
   * Absent when the inner store has no `hasNewerSession`: the caller lists the user's records.
   */
  readonly hasNewerSessionOfUser?: (options: NewerSessionOptions) => Promise<boolean>;

  /**
   * @param inner The store that keeps the records.
   * @param secrets Secrets the token keys are derived from, the first keying new records, and
   *   how many of the first seal (`tokenKeySecrets`); a list alone seals under every one.
   */
  constructor(
    private readonly inner: Store,
    secrets: TokenSecrets | readonly string[],
    options: TokenProtectionOptions = {},
  ) {
    const { secrets: listed, sealing } =
      'sealing' in secrets ? secrets : { secrets, sealing: secrets.length };
    this.now = options.now ?? Date.now;
    this.lookUpClearUserIds = options.lookUpClearUserIds === true;
    if (inner.watchClosed) this.watchClosed = (listener) => inner.watchClosed!(listener);
    // Derived now, not at the first webhook: every webhook's user lookup needs them, and
    // deriving them (Web Crypto) would make the first one wait a turn of its own. Once they
    // are, every call reads them at once. A failure is seen by the first call that uses them.
    this.keyringReady = Promise.all(listed.map(deriveTokenKey)).then((keys) => {
      this.keyring = new Keyring(keys, sealing);
      return this.keyring;
    });
    this.keyringReady.catch(() => undefined);
    if (isTransactional(inner)) {
      this.settleWith = (options, work) =>
        this.firstHit(
          options.key,
          (key) =>
            andThen(this.sealUpdate(options.update, key), (update) => {
              this.leasedResults.delete(key);
              return inner.settleWith(this.hinted(options, key, { update }), work);
            }),
          notSettled,
        );
    }
    if (inner.attachAndLease) {
      const attachAndLease = inner.attachAndLease.bind(inner);
      this.attachAndLease = async (options) => {
        const call = this.begin('attachAndLease');
        try {
          const outcome = await this.firstHit(
            options.key,
            (key) =>
              andThen(this.seal(options.result, key), (result) =>
                attachAndLease(this.hinted(options, key, { result })),
              ),
            (found) => found.attached === 'missing',
          );
          if (!outcome.leased) return outcome;
          this.learn(outcome.leased);
          const revealing = this.revealFound(options.key, outcome.leased);
          const leased = revealing instanceof Promise ? await revealing : revealing;
          return Object.assign({}, outcome, { leased });
        } finally {
          this.end(call);
        }
      };
    }
    if (inner.hasNewerSession) {
      const hasNewerSession = inner.hasNewerSession.bind(inner);
      this.hasNewerSessionOfUser = async ({ externalUserId, account, createdAfter, now }) => {
        const call = this.begin('hasNewerSession');
        try {
          const looking = this.usersToLookUp(externalUserId, account);
          const externalUserIds = looking instanceof Promise ? await looking : looking;
          return await hasNewerSession({ externalUserIds, createdAfter, now });
        } finally {
          this.end(call);
        }
      };
    }
  }

  /**
   * From now on, a call still unanswered after `slowMs` (on `clock`) is reported to `onSlow`
   * at that moment, while it waits (see `SlowCalls`). `settleWith` is not watched.
   */
  watch(clock: Clock, slowMs: number, onSlow: (method: string) => (() => void) | undefined): this {
    this.slowCalls = new SlowCalls(clock, slowMs, onSlow);
    return this;
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

  async insert(options: InsertOptions): Promise<InsertOutcome> {
    const call = this.begin('insert');
    try {
      // A delivery matched to no session (every webhook of a webhook-only Receiver) keeps its
      // key (a digest, no secret), and has its user's id and result concealed like any record.
      const concealing = this.withKeyring((keyring) => this.conceal(keyring, options.record));
      const record = concealing instanceof Promise ? await concealing : concealing;
      const outcome = await this.inner.insert(Object.assign({}, options, { record }));
      if (outcome.inserted) this.learn(record);
      if (outcome.displaced.length === 0) return outcome;
      for (const displaced of outcome.displaced) this.learn(displaced);
      const revealing = this.revealAll(outcome.displaced);
      const displaced = revealing instanceof Promise ? await revealing : revealing;
      return displaced === outcome.displaced ? outcome : { ...outcome, displaced };
    } finally {
      this.end(call);
    }
  }

  async get(options: GetOptions): Promise<TrackedSession | undefined> {
    const call = this.begin('get');
    try {
      return await this.findFirst(options.key, (key) => this.inner.get({ ...options, key }));
    } finally {
      this.end(call);
    }
  }

  /**
   * The user's records under each sealing key's hash of the id, in the keys' order (and, with
   * `lookUpClearUserIds`, under the id as it is), merged: the open ones first, then the closed
   * ones, at most `limit`. One lookup with one key (or token keys and the signing secret beside
   * them: the secret keys nothing new); during a rotation one per key, independent, so a store
   * across a network answers them in one round trip's time.
   */
  async findByUser(options: FindByUserOptions & AccountScope): Promise<TrackedSession[]> {
    const { account } = options;
    const call = this.begin('findByUser');
    try {
      const looking = this.usersToLookUp(options.externalUserId, account);
      const users = looking instanceof Promise ? await looking : looking;
      let found: TrackedSession[];
      if (users.length === 1) {
        found = await this.inner.findByUser(this.userOptions(users[0]!, options));
        this.learnUser(users[0]!, found);
      } else {
        const each = await Promise.all(
          users.map(async (externalUserId) => {
            const records = await this.inner.findByUser(this.userOptions(externalUserId, options));
            this.learnUser(externalUserId, records);
            return records;
          }),
        );
        found = mergeByUser(each, options.limit);
      }
      const revealing = this.revealAll(found, options.externalUserId);
      return revealing instanceof Promise ? await revealing : revealing;
    } finally {
      this.end(call);
    }
  }

  remember(options: RememberOptions): Promise<boolean> {
    return this.watched('remember', this.inner.remember(options));
  }

  forget(options: ForgetOptions): Promise<void> {
    return this.watched('forget', this.inner.forget(options));
  }

  attachResult(options: AttachResultOptions): Promise<AttachOutcome> {
    return this.watched(
      'attachResult',
      this.firstHit(
        options.key,
        (key) =>
          andThen(this.seal(options.result, key), (result) =>
            this.inner.attachResult(this.hinted(options, key, { result })),
          ),
        (outcome) => outcome === 'missing',
      ),
    );
  }

  async lease(options: LeaseOptions): Promise<TrackedSession | undefined> {
    const call = this.begin('lease');
    try {
      return await this.findFirst(options.key, (key) =>
        this.inner.lease(this.hinted(options, key)),
      );
    } finally {
      this.end(call);
    }
  }

  async leaseDue(options: LeaseDueOptions): Promise<TrackedSession[]> {
    const call = this.begin('leaseDue');
    try {
      const leased = await this.inner.leaseDue(options);
      for (const record of leased) this.learn(record);
      const revealing = this.revealAll(leased, undefined, this.leasedResults);
      return revealing instanceof Promise ? await revealing : revealing;
    } finally {
      this.end(call);
    }
  }

  settle(options: SettleOptions): Promise<boolean> {
    return this.watched(
      'settle',
      this.firstHit(
        options.key,
        (key) =>
          andThen(this.sealUpdate(options.update, key), (update) => {
            this.leasedResults.delete(key);
            return this.inner.settle(this.hinted(options, key, { update }));
          }),
        (settled) => !settled,
      ),
    );
  }

  counts(options: CountsOptions): Promise<Record<TrackedState, number>> {
    return this.watched('counts', this.inner.counts(options));
  }

  /**
   * Dead letters are closed: listed by their stored key, which redelivers or discards them,
   * with their results opened here (the store holds them sealed).
   */
  async listDeadLetters(options: ListDeadLettersOptions): Promise<DeadLetterPage> {
    const call = this.begin('listDeadLetters');
    try {
      const page = await this.inner.listDeadLetters(options);
      const revealing = this.revealAll(page.records);
      const records = revealing instanceof Promise ? await revealing : revealing;
      return records === page.records ? page : { ...page, records };
    } finally {
      this.end(call);
    }
  }

  redeliverDeadLetter(options: DeadLetterOptions): Promise<boolean> {
    return this.watched(
      'redeliverDeadLetter',
      this.firstHit(
        options.key,
        (key) => this.inner.redeliverDeadLetter({ ...options, key }),
        (done) => !done,
      ),
    );
  }

  discardDeadLetter(options: DeadLetterOptions): Promise<boolean> {
    return this.watched(
      'discardDeadLetter',
      this.firstHit(
        options.key,
        (key) => this.inner.discardDeadLetter({ ...options, key }),
        (done) => !done,
      ),
    );
  }

  dueSummary(options: DueSummaryOptions): Promise<DueSummary> {
    return this.watched('dueSummary', this.inner.dueSummary(options));
  }

  /**
   * Erasure: the inner store removes the user's records under every form it may hold the id
   * in (its keyed hash under each configured key, and the id itself in records written
   * before ids were hashed, whatever `lookUpClearUserIds` says), and the counts add up.
   */
  async forgetUser({ account, ...options }: ForgetUserOptions & AccountScope): Promise<number> {
    const call = this.begin('forgetUser');
    try {
      // Every listed key's hash, not only those looked up: a user hashed under a signing
      // secret before `tokenKeys` were set is erased too.
      const hashing = this.withKeyring((keyring) =>
        allOf(keyring.distinct.map((key) => userKeyOf(key, options.externalUserId, account))),
      );
      const hashed = hashing instanceof Promise ? await hashing : hashing;
      const users = account === undefined ? [...hashed, options.externalUserId] : hashed;
      const removed = await Promise.all(
        users.map((externalUserId) => {
          this.recordsOfUser.delete(externalUserId);
          return this.inner.forgetUser({ ...options, externalUserId });
        }),
      );
      return removed.reduce((total, count) => total + count, 0);
    } finally {
      this.end(call);
    }
  }

  /**
   * Claims a start in the inner store (`Store.claimStart`), named and counted under the first
   * key's hashes; a record handed back to reuse comes opened, its verify URL with it.
   * `undefined` when the inner store keeps no starts.
   */
  async claimSessionStart({
    account,
    purpose,
    counts,
    ...options
  }: StartClaimOptions): Promise<StartClaimed | undefined> {
    if (!this.inner.claimStart) return undefined;
    const call = this.begin('claimStart');
    try {
      const keying = this.withKeyring((keyring) =>
        andThen(this.storedUsers(keyring, options.externalUserId, account), (users) =>
          andThen(startKeyOf(keyring.first, users[0]!, purpose), (startKey) => ({
            startKey,
            user: users[0]!,
          })),
        ),
      );
      const { startKey, user } = keying instanceof Promise ? await keying : keying;
      const counters = counts.map(({ of, period, ...counter }) => {
        const whose: StartCountOf = of === 'user' ? { user } : { account };
        return Object.assign(counter, { key: startCountKeyOf(whose, period) });
      });
      const outcome = await this.inner.claimStart(
        Object.assign({}, options, { startKey, externalUserId: user, counters }),
      );
      if (outcome.claim !== 'reuse') return Object.assign(outcome, { startKey });
      this.learn(outcome.record);
      const revealing = this.revealAll([outcome.record], options.externalUserId);
      const [record] = revealing instanceof Promise ? await revealing : revealing;
      return { claim: 'reuse', record: record!, startKey };
    } finally {
      this.end(call);
    }
  }

  /** Ends a claim of a start (`Store.endStart`); nothing when the inner store keeps no starts. */
  async endSessionStart(options: EndStartOptions): Promise<void> {
    if (this.inner.endStart) await this.watched('endStart', this.inner.endStart(options));
  }

  /** Every key a record of `token` may be stored under, as `watchClosed` names them. */
  keysOf(token: string): MaybeAsync<string[]> {
    return this.withKeyring((keyring) => this.storedKeys(keyring, token));
  }

  /** `use` of the keyring: at once once the keys are derived, after them before. */
  private withKeyring<T>(use: (keyring: Keyring) => Promise<T>): Promise<T>;
  private withKeyring<T>(use: (keyring: Keyring) => MaybeAsync<T>): MaybeAsync<T>;
  private withKeyring<T>(use: (keyring: Keyring) => MaybeAsync<T>): MaybeAsync<T> {
    return this.keyring ? use(this.keyring) : this.keyringReady.then(use);
  }

  /** Notes a call of `method` in flight, when watched; 0 when not. */
  private begin(method: string): number {
    return this.slowCalls ? this.slowCalls.begin(method) : 0;
  }

  private end(call: number): void {
    if (call !== 0) this.slowCalls!.end(call);
  }

  /** `answer`, watched when calls are. */
  private watched<T>(method: string, answer: Promise<T>): Promise<T> {
    // A store that answers at once (not a promise) has nothing to wait on.
    if (!this.slowCalls || !((answer as unknown) instanceof Promise)) return answer;
    return this.slowCalls.watch(method, answer);
  }

  /** `options` of a lookup by user for the inner store, under `externalUserId` as it stores it. */
  private userOptions(
    externalUserId: string,
    { now, limit }: FindByUserOptions,
  ): FindByUserOptions {
    const keys = this.recordsOfUser.get(externalUserId);
    return keys ? { externalUserId, now, limit, keys } : { externalUserId, now, limit };
  }

  /**
   * Where a record of `key` may be stored: under each configured key's hash of the token (a
   * signing secret also listed among the token keys once), then under the token itself (a
   * record written before tokens were protected, or one whose token could not be opened and is
   * known by its stored key). Deliveries matched to no session are keyed by a digest, no
   * secret, and stored as they are.
   */
  private storedKeys(keyring: Keyring, key: string): MaybeAsync<string[]> {
    if (isStoredKey(key)) return [key];
    const known = this.recordKeys.get(key);
    if (known) return known;
    return andThen(
      allOf(keyring.distinct.map((tokenKey) => recordKeyOf(tokenKey, key))),
      (hashed) => this.recordKeys.set(key, [...hashed, key]),
    );
  }

  /**
   * The ids a lookup by user reads: `storedUsers`, and with `lookUpClearUserIds` the id itself
   * (records written before ids were hashed), as a user of no account may have.
   */
  private usersToLookUp(externalUserId: string, account?: string): MaybeAsync<string[]> {
    return andThen(
      this.withKeyring((keyring) => this.storedUsers(keyring, externalUserId, account)),
      (hashed) =>
        this.lookUpClearUserIds && account === undefined ? [...hashed, externalUserId] : hashed,
    );
  }

  /**
   * What a user's records are looked up under: each sealing key's hash of the id, in the keys'
   * order, the first key's first (records written before ids were hashed hold the id itself:
   * see `findByUser`). A user of an account has hashes scoped to it: the same id in two accounts
   * is two users.
   */
  private storedUsers(
    keyring: Keyring,
    externalUserId: string,
    account?: string,
  ): MaybeAsync<string[]> {
    const cacheKey = account === undefined ? externalUserId : `${account}\u0000${externalUserId}`;
    const known = this.userKeys.get(cacheKey);
    if (known) return known;
    return andThen(
      allOf(keyring.sealing.map((key) => userKeyOf(key, externalUserId, account))),
      (hashed) => this.userKeys.set(cacheKey, hashed),
    );
  }

  /** `call` under each stored key in turn until `missed` says it found the record. */
  private firstHit<T>(
    key: string,
    call: (storedKey: string) => Promise<T>,
    missed: (outcome: T) => boolean,
  ): Promise<T> {
    try {
      // A key stored as it is (a delivery's digest) is one call.
      return isStoredKey(key) ? call(key) : this.firstHitOfToken(key, call, missed);
    } catch (error) {
      return Promise.reject(error);
    }
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
    const listing = this.withKeyring((keyring) => this.storedKeys(keyring, key));
    const candidates = listing instanceof Promise ? await listing : listing;
    for (const candidate of candidates) {
      if (candidate === hint) continue;
      outcome = await call(candidate);
      if (!missed(outcome)) {
        if (candidate !== candidates[0]) this.foundUnder.set(key, candidate);
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
    this.learn(record);
    return this.revealFound(key, record);
  }

  /** A record the inner store handed over for `key`, as the Receiver knows it. */
  private revealFound(key: string, record: TrackedSession): MaybeAsync<TrackedSession> {
    if (!isConcealed(record)) return this.asFoundBy(key, record, record);
    return this.withKeyring((keyring) =>
      andThen(this.reveal(keyring, record), (revealed) => this.asFoundBy(key, record, revealed)),
    );
  }

  /** `revealed`, found through `key`: a closed record, whose sealed token is gone, is still its. */
  private asFoundBy(key: string, record: TrackedSession, revealed: TrackedSession): TrackedSession {
    if (record.token !== undefined || isStoredKey(key) || revealed.unreadableToken) {
      return revealed;
    }
    return Object.assign({}, revealed, {
      key,
      token: key,
      storedKey: record.key,
    }) satisfies RevealedSession;
  }

  /**
   * `options` for the inner store's record under `storedKey`, with `extra`, and the user id
   * that record is held under as a hint where the inner store told it before (a hint given by
   * the caller is in the Receiver's terms, not the store's: it is not passed on).
   */
  private hinted<O extends { key: string; user?: string }, E extends object = object>(
    options: O,
    storedKey: string,
    extra?: E,
  ): O & E {
    const user = this.userOfRecord.get(storedKey);
    return Object.assign({}, options, extra, { key: storedKey, user }) as O & E;
  }

  /** Notes the user id a record the inner store handed over or was given is held under. */
  private learn(record: TrackedSession): void {
    const { key, externalUserId } = record;
    if (this.userOfRecord.get(key) !== externalUserId) {
      this.userOfRecord.set(key, externalUserId);
    }
    const keys = this.recordsOfUser.get(externalUserId);
    if (keys?.includes(key)) return;
    // The latest few: enough for one user's sessions, bounded whatever one user accumulates.
    const known = keys ? [...keys.slice(1 - MAX_KEYS_PER_USER), key] : [key];
    this.recordsOfUser.set(externalUserId, known);
  }

  /** Notes what `findByUser` found under a stored user id: its records now, each's user. */
  private learnUser(externalUserId: string, records: readonly TrackedSession[]): void {
    if (records.length === 0) {
      this.recordsOfUser.delete(externalUserId);
      return;
    }
    const keys: string[] = [];
    for (const record of records) {
      if (this.userOfRecord.get(record.key) !== record.externalUserId) {
        this.userOfRecord.set(record.key, record.externalUserId);
      }
      if (record.externalUserId === externalUserId) keys.push(record.key);
    }
    // Open ones come first: those a webhook looks for.
    this.recordsOfUser.set(externalUserId, keys.slice(0, MAX_KEYS_PER_USER));
  }

  /** A result sealed for the record stored under `storedKey`. */
  private seal(result: StoredResult, storedKey: string): MaybeAsync<StoredResult> {
    // Handed back as it was read: an unreadable record's result never reaches the Receiver,
    // and a record written before results were sealed keeps its own (a store keeps the first).
    if (isSealedResult(result)) return result;
    const known = this.sealedForms.get(result);
    if (known?.storedKey === storedKey) return known.sealed;
    return this.withoutLinkOfStored(result, storedKey) ?? this.sealAnew(result, storedKey);
  }

  private sealAnew(result: StoredResult, storedKey: string): MaybeAsync<StoredResult> {
    return this.withKeyring((keyring) =>
      andThen(sealResult(keyring, result, storedKey), (sealed) => {
        this.sealedForms.set(result, { storedKey, sealed });
        this.rememberOpened(storedKey, sealed, result);
        return sealed;
      }),
    );
  }

  /**
   * The result stored under `storedKey`, as this process sealed or opened it, with its image
   * link dropped, when `result` is that (a retry due after the link's 15 minutes, a record
   * closing): the sealed link's part left out, nothing sealed again.
   */
  private withoutLinkOfStored(result: StoredResult, storedKey: string): StoredResult | undefined {
    if (result.payload.frontImageUrl !== '') return undefined;
    const stored = this.leasedResults.get(storedKey) ?? this.openedResults.get(storedKey);
    if (!stored || !sameButLink(result, stored.value)) return undefined;
    const sealed = sealedWithoutLink({ sealed: stored.sealed } as unknown as StoredResult);
    if (sealed) this.rememberOpened(storedKey, sealed, result);
    return sealed;
  }

  /**
   * What a sealed result opens to, known without opening it: the result this process just
   * sealed. The lease or lookup that reads it back next (a webhook leases what it attached)
   * then decrypts nothing. A copy, so that what the caller changes later stays out.
   */
  private rememberOpened(storedKey: string, sealed: StoredResult, result: StoredResult): void {
    const text = (sealed as unknown as SealedResult).sealed;
    this.keepOpenedResult(storedKey, { sealed: text, value: { ...result } });
  }

  /** Keeps what a sealed result stored under `storedKey` opened to (OPENED_RESULTS_LIMIT). */
  private keepOpenedResult(storedKey: string, opened: Opened<StoredResult>): void {
    this.openedResults.set(storedKey, opened);
  }

  private sealUpdate(update: SettleUpdate, storedKey: string): MaybeAsync<SettleUpdate> {
    if (!update.result) return update;
    return andThen(this.seal(update.result, storedKey), (result) =>
      Object.assign({}, update, { result }),
    );
  }

  /** A record as the store keeps it: its token, user's id and result concealed. */
  private conceal(keyring: Keyring, record: TrackedSession): MaybeAsync<TrackedSession> {
    const { token, result, account, verifyUrl, verifyUrlExpiresAt, ...rest } = record;
    const keying = isUnmatchedKey(record.key) ? record.key : recordKeyOf(keyring.first, record.key);
    return andThen(keying, (key) =>
      // The first key's hash, as `findByUser` of the same webhook already computed it.
      andThen(this.storedUsers(keyring, record.externalUserId, account), (users) => {
        const concealed: TrackedSession = Object.assign(rest, { key, externalUserId: users[0]! });
        const sealing =
          token === undefined
            ? undefined
            : sealToken(keyring, token, key, record.externalUserId, verifyUrl, verifyUrlExpiresAt);
        return andThen(sealing, (sealed) => {
          if (sealed !== undefined) concealed.token = sealed;
          if (result === undefined) return concealed;
          return andThen(this.seal(result, key), (sealedResult) => {
            concealed.result = sealedResult;
            return concealed;
          });
        });
      }),
    );
  }

  /** Records as the Receiver knows them; each one's stored key is kept for later calls. */
  private revealAll(
    records: TrackedSession[],
    externalUserId?: string,
    leased?: RecentEntries<string, Opened<StoredResult>>,
  ): MaybeAsync<TrackedSession[]> {
    for (const record of records) {
      // Written before tokens were protected: stored under the token itself.
      if (record.token !== undefined && record.token === record.key) {
        this.foundUnder.set(record.key, record.key);
      }
    }
    if (!records.some(isConcealed)) return records;
    return this.withKeyring((keyring) =>
      allOf(records.map((record) => this.reveal(keyring, record, externalUserId, leased))),
    );
  }

  /**
   * A stored record with its token, user's id and result opened, and the token as its key.
   * `externalUserId`: the id it was looked up by, when it was (`findByUser`). `leased`: where
   * the opened result is kept until the record's settle, for a record leased.
   */
  private reveal(
    keyring: Keyring,
    record: TrackedSession,
    externalUserId?: string,
    leased?: RecentEntries<string, Opened<StoredResult>>,
  ): MaybeAsync<TrackedSession> {
    if (!isConcealed(record)) return record;
    const sealedToken =
      record.token !== undefined && isSealed(record.token) ? record.token : undefined;
    const known =
      sealedToken === undefined ? undefined : openedFrom(this.opened, record.key, sealedToken);
    const openingToken =
      sealedToken === undefined || known !== undefined
        ? known
        : openSealedToken(keyring, sealedToken, record.key);
    return andThen(openingToken, (opened) => {
      let missing: string[] | undefined;
      // Kept once, when opened: a record read again (a sweep's lookup of its user) finds it.
      if (opened && !known) this.opened.set(record.key, { sealed: sealedToken!, value: opened });
      else if (!opened && sealedToken !== undefined) missing = sealedKeyIds(sealedToken);
      // Found by its user, a record is indexed where a webhook looks: nothing to check.
      const indexing =
        opened?.externalUserId === undefined || externalUserId !== undefined
          ? true
          : this.indexedUnderListedKey(keyring, record, opened.externalUserId);
      return andThen(indexing, (indexed) => {
        const found: Found = { opened, missing };
        if (!indexed) found.userKeyMissing = unsearchedKeyIds(keyring, sealedToken!);
        return this.revealResult(keyring, record, externalUserId, found, leased);
      });
    });
  }

  /**
   * Whether an open record's user is indexed under the hash of a key this instance looks users
   * up under, as a webhook naming the user does (`findByUser`): not when the key that was first
   * when the session started has been removed since, or is a signing secret listed beside
   * `tokenKeys` no more among them. One user's hashes are computed once a process.
   */
  private indexedUnderListedKey(
    keyring: Keyring,
    record: TrackedSession,
    externalUserId: string,
  ): MaybeAsync<boolean> {
    if (!isHashedUser(record.externalUserId)) return true;
    const account = accountOfStoredUser(record.externalUserId);
    return andThen(this.storedUsers(keyring, externalUserId, account), (users) =>
      users.includes(record.externalUserId),
    );
  }

  /** `reveal`'s last step: the record's result opened, then the record as the Receiver knows it. */
  private revealResult(
    keyring: Keyring,
    record: TrackedSession,
    externalUserId: string | undefined,
    found: Found,
    leased: RecentEntries<string, Opened<StoredResult>> | undefined,
  ): MaybeAsync<TrackedSession> {
    const stored = record.result;
    if (stored === undefined || !isSealedResult(stored)) {
      return this.revealed(record, externalUserId, found, stored);
    }
    const sealed = (stored as unknown as SealedResult).sealed;
    // A record a sweep leased is read again by its user's lookup before it settles (is it
    // superseded?): opened once, whatever the batch's size beside OPENED_RESULTS_LIMIT.
    const whileLeased = openedFrom(this.leasedResults, record.key, sealed);
    const cached = whileLeased ?? openedFrom(this.openedResults, record.key, sealed);
    return andThen(cached ?? openResult(keyring, stored, record.key), (result) => {
      if (!result) {
        const missing = found.missing ?? sealedResultKeyIds(stored);
        return this.revealed(record, externalUserId, { ...found, missing }, undefined);
      }
      if (!cached) this.keepOpenedResult(record.key, { sealed, value: result });
      if (leased && !whileLeased) leased.set(record.key, { sealed, value: result });
      // A copy, as a store hands out: what a caller changes stays out of the cache.
      const copy = { ...result };
      this.sealedForms.set(copy, { storedKey: record.key, sealed: stored });
      return this.revealed(record, externalUserId, found, copy);
    });
  }

  /** `record` as the Receiver knows it, with what was opened of it. */
  private revealed(
    record: TrackedSession,
    externalUserId: string | undefined,
    { opened, missing, userKeyMissing }: Found,
    result: StoredResult | undefined,
  ): TrackedSession {
    const { token: _stored, result: _sealed, ...rest } = record;
    // The account is in the stored user id, readable without any key.
    const account = accountOfStoredUser(record.externalUserId);
    if (account !== undefined) rest.account = account;
    if (missing) {
      this.raiseMissing(missing);
      // What this instance cannot open it hands over without it: the Receiver leaves the
      // record alone, and knows a result is stored, so it does not ask for one to be delivered.
      return Object.assign(rest, {
        unreadableToken: { keyIds: missing, ...(record.result ? { hasResult: true } : {}) },
      });
    }
    const revealed: TrackedSession = Object.assign(rest, {
      externalUserId: isHashedUser(record.externalUserId)
        ? (externalUserId ??
          opened?.externalUserId ??
          result?.payload.external_user_id ??
          // Closed without a result: its token and the id with it are gone, by design.
          record.externalUserId)
        : record.externalUserId,
    });
    if (result) revealed.result = result;
    if (userKeyMissing) {
      this.raiseUserKeyMissing(userKeyMissing);
      revealed.userKeyMissing = { keyIds: userKeyMissing };
    }
    if (opened) {
      if (this.foundUnder.get(opened.token) !== record.key) {
        this.foundUnder.set(opened.token, record.key);
      }
      if (opened.verifyUrl !== undefined) revealed.verifyUrl = opened.verifyUrl;
      if (opened.verifyUrlExpiresAt !== undefined) {
        revealed.verifyUrlExpiresAt = opened.verifyUrlExpiresAt;
      }
      return Object.assign(revealed, {
        key: opened.token,
        token: opened.token,
        storedKey: record.key,
      }) satisfies RevealedSession;
    }
    // A clear token (written before tokens were protected), or none (closed, or unmatched).
    if (record.token !== undefined) revealed.token = record.token;
    return revealed;
  }

  /** Raises `token_key_missing` for these key ids, at most once per window. */
  private raiseMissing(keyIds: string[]): void {
    const ids = keyIds.join(', ');
    if (!this.firstInWindow(ids)) return;
    this.alarms.raise(
      'token_key_missing',
      `A session in the store has its token or result sealed under token key ${ids}, and this instance lists none of them, so it leaves that session to an instance that does: it neither polls, delivers nor expires it. During a rolling change this passes once every instance runs the new configuration. If no instance lists the key any more, it was removed too soon: list the secret (FACEVERIFY_WEBHOOK_SECRET) or token key (FACEVERIFY_TOKEN_KEYS) again, last in the list, until sessions started before the change have closed (see "Session tokens at rest" in docs/polling-and-stores.md).`,
    );
  }

  /**
   * Raises `token_key_missing` for a session whose user is indexed under a key this instance
   * no longer lists (`keyIds`: those its token is sealed under that it lacks), once per window.
   */
  private raiseUserKeyMissing(keyIds: string[]): void {
    const ids = keyIds.join(', ');
    if (!this.firstInWindow(`user ${ids}`)) return;
    this.alarms.raise(
      'token_key_missing',
      `Sessions in the store are indexed by their users under a key this instance does not list as a token key${ids === '' ? '' : ` (${ids})`}: webhooks naming their users find no session here and are answered untracked; their results still come by polling, later. List it again on this instance, last in the list (the token key FACEVERIFY_TOKEN_KEYS, or without token keys the secret FACEVERIFY_WEBHOOK_SECRET; a signing secret that keyed them before token keys were set goes last among FACEVERIFY_TOKEN_KEYS), until the sessions it keyed have closed: it was removed too soon, or another instance lists it first while this one lacks it (a rotation lists a new key last on every instance before any lists it first: "Session tokens at rest" in docs/polling-and-stores.md).`,
    );
  }

  /** Whether the alarm about `topic` was not raised within the window: it is noted raised now. */
  private firstInWindow(topic: string): boolean {
    const now = this.now();
    const last = this.missingRaisedAt.get(topic);
    if (last !== undefined && now - last < MISSING_KEY_WINDOW_MS) return false;
    this.missingRaisedAt.set(topic, now);
    return true;
  }
}

/** What was opened of a stored record, and which key ids it names that none listed opens. */
interface Found {
  opened: OpenedToken | undefined;
  /** Its token or result cannot be opened: sealed under these ids only. */
  missing: string[] | undefined;
  /** Its user is indexed under a key not looked up: its token's key ids that are not. */
  userKeyMissing?: string[];
}

/** The ids a sealed token is sealed under that `keyring` looks no user up under. */
function unsearchedKeyIds(keyring: Keyring, sealedToken: string): string[] {
  return sealedKeyIds(sealedToken).filter((id) => !keyring.sealing.some((key) => key.id === id));
}

/**
 * One user's records found under several stored ids, as one store would list them: every open
 * one first, then the closed ones, at most `limit`, each once.
 */
function mergeByUser(found: TrackedSession[][], limit: number): TrackedSession[] {
  const seen = new Set<string>();
  const open: TrackedSession[] = [];
  const closed: TrackedSession[] = [];
  for (const records of found) {
    for (const record of records) {
      if (seen.has(record.key)) continue;
      seen.add(record.key);
      (isOpen(record.state) ? open : closed).push(record);
    }
  }
  return [...open, ...closed].slice(0, limit);
}

function notSettled<T>(outcome: SettledWith<T>): boolean {
  return !outcome.settled;
}

/**
 * Whether `result` is `stored` with its image link emptied and nothing else changed: each
 * field the same value (a result handed out is a copy whose fields are the stored one's).
 */
function sameButLink(result: StoredResult, stored: StoredResult): boolean {
  return (
    sameFields(result, stored, 'payload') &&
    sameFields(result.payload, stored.payload, 'frontImageUrl')
  );
}

/** Whether `a` and `b` hold the same fields with the same values, `except` one. */
function sameFields<T extends object>(a: T, b: T, except: keyof T): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => key === except || left[key] === right[key]);
}
