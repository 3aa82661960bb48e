/**
 * Cloudflare D1 store for faceverify: durable tracked sessions, leases and dedup for Workers and
 * their cron sweep.
 *
 * @module @faceverify/cloudflare
 */

export { applyMigrations } from './apply-migrations.js';
export type { D1Database, D1PreparedStatement, D1Result } from './d1.js';
export { D1Store, type D1StoreOptions } from './d1-store.js';
export { D1StoreError, type D1StoreFailure } from './errors.js';
export { FACEVERIFY_MIGRATIONS, type Migration } from './migrations.js';
