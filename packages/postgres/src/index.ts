export { type PostgresStoreFailure, PostgresStoreError } from './errors.js';
export { type PostgresStoreOptions, PostgresStore } from './postgres-store.js';
export type {
  MigrateReport,
  PruneOptions,
  PruneReport,
  SqlStore,
  SqlStoreOptions,
} from './sql-store.js';
