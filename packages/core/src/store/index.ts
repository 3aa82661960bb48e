/**
 * For authors of Store implementations (such as `@faceverify/redis`): the interface, the records
 * it keeps, and the contract cases every Store must pass.
 *
 * @module @faceverify/core/store
 */

export { checkStorableUserId } from '../client/external-user-id.js';
export { type StoreContractCase, storeContractCases } from '../testing/store-contract.js';
export {
  type DeadLetterPosition,
  decodeDeadLetterCursor,
  encodeDeadLetterCursor,
} from './dead-letter-cursor.js';
export type {
  AttachAndLeaseOptions,
  AttachAndLeaseOutcome,
  AttachOutcome,
  AttachResultOptions,
  ClosedRecordListener,
  ClosedState,
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
  Lease,
  LeaseDueOptions,
  LeaseOptions,
  ListDeadLettersOptions,
  OpenState,
  RecordUserHint,
  RememberOptions,
  SettledWith,
  SettleOptions,
  SettleUpdate,
  Store,
  StoredResult,
  TrackedSession,
  TrackedState,
  TransactionalStore,
  TransactionOf,
} from './store.js';
export { isOpen } from './store.js';
export { type StoreAlarmListener, StoreAlarmListeners } from './store-alarm.js';
