-- faceverify D1Store schema, version 3: starts (Store.claimStart, contract rule 13) and their
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
