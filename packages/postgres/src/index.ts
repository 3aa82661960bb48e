export { PostgresStoreError, type PostgresStoreFailure } from './errors.js';
export type { TableNames } from './names.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export type {
  MigrateReport,
  PostgresReplication,
  PruneOptions,
  PruneReport,
  SqlStore,
  SqlStoreOptions,
} from './sql-store.js';
