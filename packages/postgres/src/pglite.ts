/**
 * PGlite (PostgreSQL in WebAssembly) store for faceverify: a store in a file or in memory,
 * for tests, demos and single-process apps. The names both stores share (`PostgresStoreError`,
 * `SqlStore`, `MigrateReport`, ...) are exported by `@faceverify/postgres` alone, which
 * loads no driver: import them from there.
 *
 * @module @faceverify/postgres/pglite
 */

export { PGliteStore, type PGliteStoreOptions } from './pglite-store.js';
