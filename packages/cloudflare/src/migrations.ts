/** One schema migration, as `wrangler d1 migrations` applies it. */
export interface Migration {
  /** The file name in `migrations/`, which is also the name wrangler records it under. */
  name: string;
  /** The file's text. */
  sql: string;
}

/**
 * The store's schema, in order. Each one is also shipped as a file in this package's
 * `migrations/` folder, for `wrangler d1 migrations apply`; a test keeps the two identical.
 */
export const FACEVERIFY_MIGRATIONS: readonly Migration[] = [
  {
    name: '0001_faceverify_store.sql',
    sql: `-- faceverify D1Store schema, version 1. Apply with \`wrangler d1 migrations apply <database>\`
-- (copy this file into the database's migrations_dir), or with applyMigrations(db) in tests.

-- One row per tracked session, or per verified delivery that matched no session.
-- Times are ms since the epoch. \`purge_at\` is when the row stops existing: for a closed
-- record the end of its retention, for an open one a day past both its expiry and its due
-- time. Rows past it are invisible to every read and deleted in bounded batches.
CREATE TABLE IF NOT EXISTS faceverify_records (
  key TEXT PRIMARY KEY NOT NULL,
  token TEXT,
  external_user_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivering', 'completed', 'expired', 'failed')),
  due_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  result TEXT,
  lease_owner TEXT,
  lease_until INTEGER,
  purge_at INTEGER NOT NULL
);

-- Only open records are indexed by due time, so leaseDue reads the due records and nothing else.
CREATE INDEX IF NOT EXISTS faceverify_records_due
  ON faceverify_records (due_at)
  WHERE state IN ('pending', 'delivering');

-- findByUser and the per-user bound of insert.
CREATE INDEX IF NOT EXISTS faceverify_records_user
  ON faceverify_records (external_user_id, created_at);

-- Retention: the rows past their time, oldest first.
CREATE INDEX IF NOT EXISTS faceverify_records_purge
  ON faceverify_records (purge_at);

-- The replay window: digests of accepted deliveries, each until its time.
CREATE TABLE IF NOT EXISTS faceverify_digests (
  digest TEXT PRIMARY KEY NOT NULL,
  until INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS faceverify_digests_until
  ON faceverify_digests (until);
`,
  },
  {
    name: '0002_faceverify_dead_letters.sql',
    sql: `-- faceverify D1Store schema, version 2: dead letters (records closed as failed) in listing
-- order, so a page reads its own rows only.
CREATE INDEX IF NOT EXISTS faceverify_records_dead_letters
  ON faceverify_records (purge_at, key)
  WHERE state = 'failed';
`,
  },
  {
    name: '0003_faceverify_starts.sql',
    sql: `-- faceverify D1Store schema, version 3: starts (Store.claimStart, contract rule 13) and their
-- counts.

-- One row per need of one user, keyed by a keyed hash of both: the session last started for
-- it (and that session's expiry) and, while one is being created, the claim of whoever creates
-- it. Past drop_at its claim has lapsed and its session can no longer be handed out again: it
-- is deleted in bounded batches, as records are.
CREATE TABLE IF NOT EXISTS faceverify_starts (
  start_key TEXT PRIMARY KEY NOT NULL,
  external_user_id TEXT NOT NULL,
  record_key TEXT,
  record_expires_at INTEGER,
  owner TEXT,
  claim_until INTEGER,
  drop_at INTEGER NOT NULL
);

-- forgetUser removes the user's starts with the user's records.
CREATE INDEX IF NOT EXISTS faceverify_starts_user
  ON faceverify_starts (external_user_id);

CREATE INDEX IF NOT EXISTS faceverify_starts_drop
  ON faceverify_starts (drop_at);

-- One row per count of starts (a user's or an account's, in one period), counted until the
-- end of its period (until), then counted anew; deleted once past it.
CREATE TABLE IF NOT EXISTS faceverify_start_counts (
  counter_key TEXT PRIMARY KEY NOT NULL,
  count INTEGER NOT NULL,
  until INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS faceverify_start_counts_until
  ON faceverify_start_counts (until);
`,
  },
];
