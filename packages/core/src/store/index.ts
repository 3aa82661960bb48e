// For authors of Store implementations (such as `@faceverify/redis`): the interface, the
// records it keeps, and the contract cases every Store must pass.

export { type StoreContractCase, storeContractCases } from '../testing/store-contract.js';
export type {
  AttachOutcome,
  Lease,
  SettleUpdate,
  Store,
  StoredResult,
  TrackedSession,
  TrackedState,
} from './store.js';
