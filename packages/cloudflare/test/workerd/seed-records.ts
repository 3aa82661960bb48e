import type { D1Database } from '../../src/index.js';

/**
 * Inserts `count` open records in one statement (a recursive CTE), keys `<prefix><n>`, each
 * for its own user, due at `dueAt`: enough rows to show what a query costs, quickly.
 */
export async function seedRecords(
  db: D1Database,
  { prefix, count, dueAt, now }: { prefix: string; count: number; dueAt: number; now: number },
): Promise<void> {
  await db
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
       INSERT INTO faceverify_records (key, token, external_user_id, created_at, expires_at,
         state, due_at, attempts, purge_at)
       SELECT ?1 || i, ?1 || i, 'user_' || ?1 || i, ?4, ?4 + 3600000, 'pending', ?3, 0,
         ?4 + 3600000 + 86400000 + ?3 FROM n`,
    )
    .bind(prefix, count, dueAt, now)
    .run();
}
