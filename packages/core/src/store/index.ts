/**
 * For authors of Store implementations (such as `@faceverify/redis`): the interface and the
 * records it keeps. The contract cases every Store must pass are a test's, in
 * `@faceverify/core/testing`.
 *
 * @module @faceverify/core/store
 */

// Each name says who uses it and why: the stores of this repository (RedisStore, PostgresStore
// and PGliteStore, D1Store), and any store of an app's own, which implements the same interface.

// Redis, PostgreSQL and D1: refuse a user id no store could keep bit for bit (lone surrogates).
export { checkStorableUserId } from '../client/external-user-id.js';
// Redis: its memory alarm's message counts keys as a person would write them.
export { counted } from '../operations/counted.js';
export {
  // What a dead-letter cursor encodes: where a listing stopped.
  type DeadLetterPosition,
  // Redis, PostgreSQL and D1: `listDeadLetters` reads the cursor the Receiver hands back.
  decodeDeadLetterCursor,
  // Redis, PostgreSQL and D1: `listDeadLetters` hands back an opaque cursor, the same in each.
  encodeDeadLetterCursor,
} from './dead-letter-cursor.js';
// The Store interface and its records and options: what every store implements and takes.
export type {
  // What `attachAndLease` takes (Redis, PostgreSQL, D1, MemoryStore: attach and lease in one step).
  AttachAndLeaseOptions,
  // What `attachAndLease` answers.
  AttachAndLeaseOutcome,
  // What `attachResult` answers.
  AttachOutcome,
  // What `attachResult` takes.
  AttachResultOptions,
  // What `claimStart` takes (every store: one session per need of a user, and the day's counts).
  ClaimStartOptions,
  // What `claimStart` answers.
  ClaimStartOutcome,
  // What `watchClosed` calls (Redis pub/sub, PostgreSQL LISTEN).
  ClosedRecordListener,
  // The states a record closes in.
  ClosedState,
  // What `counts` takes.
  CountsOptions,
  // What `redeliverDeadLetter` and `discardDeadLetter` take.
  DeadLetterOptions,
  // What `listDeadLetters` answers.
  DeadLetterPage,
  // What `dueSummary` answers.
  DueSummary,
  // What `dueSummary` takes.
  DueSummaryOptions,
  // What `endStart` takes.
  EndStartOptions,
  // What `findByUser` takes.
  FindByUserOptions,
  // What `forget` takes (a replay digest's).
  ForgetOptions,
  // What `forgetUser` takes.
  ForgetUserOptions,
  // What `get` takes.
  GetOptions,
  // What `hasNewerSession` takes.
  HasNewerSessionOptions,
  // `insert`'s `start`: the claimed start the inserted session ends.
  InsertedStart,
  // What `insert` takes.
  InsertOptions,
  // What `insert` answers.
  InsertOutcome,
  // A record's lease (`TrackedSession.lease`).
  Lease,
  // What `leaseDue` takes.
  LeaseDueOptions,
  // What `lease` takes.
  LeaseOptions,
  // What `listDeadLetters` takes.
  ListDeadLettersOptions,
  // The states of a record still worked on.
  OpenState,
  // The stored user id a caller may hint at, so a store declares the user's keys up front.
  RecordUserHint,
  // What `remember` takes.
  RememberOptions,
  // What `settleWith` answers (PostgresStore, PGliteStore).
  SettledWith,
  // What `settle` takes.
  SettleOptions,
  // What `settle` writes.
  SettleUpdate,
  // A count of starts `claimStart` reads, counts and limits.
  StartCounter,
  // The interface itself.
  Store,
  // A result as a record keeps it.
  StoredResult,
  // A record: a tracked session, or a delivery matched to no session.
  TrackedSession,
  // A record's state.
  TrackedState,
  // A store that runs handlers in its transaction (PostgresStore, PGliteStore).
  TransactionalStore,
  // The transaction a store's transactional handlers get (`createReceiver`'s type).
  TransactionOf,
} from './store.js';
// Redis, PostgreSQL and D1: which states are open, as the Receiver reads them; and how long
// an open record is kept past its expiry and due time (rule 8), as every store keeps it.
export { isOpen, OPEN_RECORD_GRACE_MS } from './store.js';
export {
  // What a store's `onAlarm` calls.
  type StoreAlarmListener,
  // Redis and PostgreSQL: `onAlarm` subscribers, and the alarms raised to them.
  StoreAlarmListeners,
} from './store-alarm.js';
