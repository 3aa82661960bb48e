export { PostgresStoreError, type PostgresStoreFailure } from './errors.js';
export type { TableNames } from './names.js';
export { PGliteStore, type PGliteStoreOptions } from './pglite-store.js';
export type {
  MigrateReport,
  PruneOptions,
  PruneReport,
  SqlStore,
  SqlStoreOptions,
} from './sql-store.js';
