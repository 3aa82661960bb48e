/**
 * PostgreSQL store for faceverify: shared tracking across instances, and handler effects committed
 * once with the delivery, even across crashes.
 *
 * @module @faceverify/postgres
 */

// The names PostgresStore and PGliteStore (`@faceverify/postgres/pglite`) share are exported
// here alone: this entry loads no driver (`pg` is only a type here), so an app on PGlite
// imports them from it as well, and `instanceof PostgresStoreError` holds for either store.
export { PostgresStoreError, type PostgresStoreFailure } from './errors.js';
export {
  countPostgresStoreRecords,
  hasPostgresStoreData,
  type PostgresStoreLocation,
} from './inspect-store.js';
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
