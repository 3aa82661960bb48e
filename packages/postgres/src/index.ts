/**
 * PostgreSQL store for faceverify: shared tracking across instances, and handler effects committed
 * once with the delivery, even across crashes.
 *
 * @module @faceverify/postgres
 */

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
