import type { D1Database } from './d1.js';
import { d1StoreError } from './errors.js';
import { FACEVERIFY_MIGRATIONS, type Migration } from './migrations.js';

// The table wrangler keeps applied migrations in, with its columns: a database prepared by
// applyMigrations is seen as up to date by `wrangler d1 migrations apply`, and the other way round.
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS d1_migrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT UNIQUE,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`;

/** The statements of a migration file: comments dropped, split at the `;` ending a line. */
export function statementsOf(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/**
 * Applies the migrations not yet recorded in `d1_migrations`, each in one transaction with its
 * record. For tests and local development; deploy with `wrangler d1 migrations apply`.
 * Returns the names of the migrations it applied.
 *
 * @example
 * import { applyMigrations, D1Store } from '@faceverify/cloudflare';
 *
 * await applyMigrations(env.DB);
 * const store = new D1Store({ db: env.DB });
 */
export async function applyMigrations(
  db: D1Database,
  migrations: readonly Migration[] = FACEVERIFY_MIGRATIONS,
): Promise<string[]> {
  try {
    await db.prepare(MIGRATIONS_TABLE).run();
    const { results } = await db.prepare('SELECT name FROM d1_migrations').all<{ name: string }>();
    const applied = new Set(results.map((row) => row.name));
    const names: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.name)) continue;
      await db.batch([
        ...statementsOf(migration.sql).map((statement) => db.prepare(statement)),
        db.prepare('INSERT INTO d1_migrations (name) VALUES (?1)').bind(migration.name),
      ]);
      names.push(migration.name);
    }
    return names;
  } catch (error) {
    throw d1StoreError('applyMigrations', error);
  }
}
