-- faceverify D1Store schema, version 2: dead letters (records closed as failed) in listing
-- order, so a page reads its own rows only.
CREATE INDEX IF NOT EXISTS faceverify_records_dead_letters
  ON faceverify_records (purge_at, key)
  WHERE state = 'failed';
