export { type PostgresStoreFailure, PostgresStoreError } from './errors.js';
export { type PGliteStoreOptions, PGliteStore } from './pglite-store.js';
export type {
  MigrateReport,
  PruneOptions,
  PruneReport,
  SqlStore,
  SqlStoreOptions,
} from './sql-store.js';
