-- The app's own table: each user's latest verification result, as the handler records it.
CREATE TABLE IF NOT EXISTS user_verifications (
  user_id TEXT PRIMARY KEY NOT NULL,
  status TEXT NOT NULL,
  event_id TEXT NOT NULL,
  source TEXT NOT NULL,
  liveness_passed INTEGER NOT NULL,
  duplicate INTEGER NOT NULL,
  risk TEXT NOT NULL,
  reason TEXT,
  recorded_at TEXT NOT NULL,
  -- How many times a handler recorded a result for this user: one per delivered result.
  deliveries INTEGER NOT NULL
);
