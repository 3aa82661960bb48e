export { PostgresStoreError, type PostgresStoreFailure } from './errors.js';
export type { TableNames } from './names.js';
export {
  type PostgresReplication,
  PostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.js';
export type {
  MigrateReport,
  PruneOptions,
  PruneReport,
  SqlStore,
  SqlStoreOptions,
} from './sql-store.js';
