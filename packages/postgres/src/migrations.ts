import { OPEN_RECORD_GRACE_MS } from '@faceverify/shared-sql';
import type { TableNames } from './names.js';

/** One schema change, applied once, in `version` order. */
export interface Migration {
  version: number;
  /** File name in the package's `migrations/` folder. */
  name: string;
  sql(names: TableNames): string;
}

const OPEN = `('pending', 'delivering')`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: '0001_create_tables.sql',
    sql: ({ schema, prefix, sessions, digests }) => `CREATE SCHEMA IF NOT EXISTS ${schema};

-- One row per tracked session, or per verified delivery matched to no session.
-- Times are milliseconds since the epoch, always passed in by the application's clock.
CREATE TABLE ${sessions} (
  key text PRIMARY KEY,
  token text,
  external_user_id text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'delivering', 'completed', 'expired', 'failed')),
  due_at bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  result jsonb,
  lease_owner text,
  lease_until bigint,
  -- End of a closed record's retention; NULL while open.
  purge_at bigint,
  -- When the row stops existing for readers and may be deleted.
  drop_at bigint GENERATED ALWAYS AS (
    COALESCE(purge_at, GREATEST(expires_at, due_at) + ${OPEN_RECORD_GRACE_MS})
  ) STORED
);

-- Due open records only: finding work costs in proportion to the due records.
CREATE INDEX ${prefix}sessions_due ON ${sessions} (due_at) WHERE state IN ${OPEN};
CREATE INDEX ${prefix}sessions_user ON ${sessions} (external_user_id);
CREATE INDEX ${prefix}sessions_drop ON ${sessions} (drop_at);

-- Digests of accepted webhook bodies, for the replay window.
CREATE TABLE ${digests} (
  digest text PRIMARY KEY,
  until bigint NOT NULL
);

CREATE INDEX ${prefix}digests_until ON ${digests} (until);
`,
  },
  {
    version: 2,
    name: '0002_result_as_text.sql',
    sql: ({
      sessions,
    }) => `-- The result is kept as the JSON text the application wrote, not as jsonb: jsonb refuses
-- the escapes \\u0000 and lone surrogates (\\ud800), which a result's strings may carry, and
-- a result the store cannot hold would be delivered again at every attempt.
ALTER TABLE ${sessions} ALTER COLUMN result TYPE text USING result::text;
`,
  },
  {
    version: 3,
    name: '0003_dead_letters_index.sql',
    sql: ({
      prefix,
      sessions,
    }) => `-- Dead letters (records closed as failed) in listing order: a page reads its own rows only.
CREATE INDEX ${prefix}sessions_dead_letters ON ${sessions} (purge_at, key) WHERE state = 'failed';
`,
  },
  {
    version: 4,
    name: '0004_starts.sql',
    sql: ({
      prefix,
      sessions,
      starts,
      startCounts,
      claimStart,
    }) => `-- Starts (Store.claimStart, contract rule 13): one row per need of one user, keyed by a keyed
-- hash of the user and the need. It names the session last started for it and, while one is
-- being created, the claim of whoever creates it. A row may be deleted from drop_at on: its
-- claim lapsed and its session can no longer be handed out again (past its expiry).
CREATE TABLE ${starts} (
  start_key text PRIMARY KEY,
  external_user_id text NOT NULL,
  record_key text,
  record_expires_at bigint,
  owner text,
  claim_until bigint,
  drop_at bigint NOT NULL
);

CREATE INDEX ${prefix}starts_user ON ${starts} (external_user_id);
CREATE INDEX ${prefix}starts_drop ON ${starts} (drop_at);

-- Counts of starts: one row per counter (a user's or an account's, in one period), counted
-- until the end of its period (until), then counted anew; deleted once past it.
CREATE TABLE ${startCounts} (
  counter_key text PRIMARY KEY,
  count integer NOT NULL,
  until bigint NOT NULL
);

CREATE INDEX ${prefix}start_counts_until ON ${startCounts} (until);

-- One claim of a start, in one call: the start's row is locked first, so concurrent claims of
-- one start take turns, and each statement below reads what the previous claim committed
-- (a new snapshot per statement). Then the session it names is handed back when it is still
-- pending with the life asked (p_reuse_by; NULL for a fresh session), or another owner's live
-- claim answers busy, or the counters not read only are locked (in key order, so claims
-- sharing counters never deadlock) and checked against their limits, and only when none is
-- at its limit counted and the claim granted. p_counters: [{key, limit, readOnly, ttlMs}].
CREATE FUNCTION ${claimStart}(p_start text, p_user text, p_owner text, p_now bigint,
  p_claim_until bigint, p_reuse_by bigint, p_counters jsonb,
  OUT claim text, OUT claim_until bigint, OUT counter integer, OUT counts bigint[],
  OUT found_record jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  found_start ${starts}%ROWTYPE;
  item jsonb;
  ordinal integer;
  counter_name text;
  counted bigint;
BEGIN
  -- Until the row is locked: a retention step may delete a row past its time in between.
  LOOP
    INSERT INTO ${starts} (start_key, external_user_id, drop_at)
      VALUES (p_start, p_user, p_now) ON CONFLICT (start_key) DO NOTHING;
    SELECT * INTO found_start FROM ${starts} WHERE start_key = p_start FOR UPDATE;
    EXIT WHEN FOUND;
  END LOOP;
  IF p_reuse_by IS NOT NULL AND found_start.record_key IS NOT NULL THEN
    SELECT to_jsonb(s) INTO found_record FROM ${sessions} s
    WHERE s.key = found_start.record_key AND s.state = 'pending'
      AND s.expires_at >= p_reuse_by AND s.drop_at > p_now;
    IF found_record IS NOT NULL THEN
      claim := 'reuse';
      RETURN;
    END IF;
  END IF;
  IF found_start.owner IS NOT NULL AND found_start.owner <> p_owner
    AND found_start.claim_until > p_now THEN
    claim := 'busy';
    claim_until := found_start.claim_until;
    RETURN;
  END IF;
  FOR counter_name IN SELECT DISTINCT c.value->>'key' FROM jsonb_array_elements(p_counters) c
    WHERE NOT (c.value->>'readOnly')::boolean ORDER BY 1 LOOP
    LOOP
      INSERT INTO ${startCounts} (counter_key, count, until) VALUES (counter_name, 0, p_now)
        ON CONFLICT (counter_key) DO NOTHING;
      PERFORM 1 FROM ${startCounts} WHERE counter_key = counter_name FOR UPDATE;
      EXIT WHEN FOUND;
    END LOOP;
  END LOOP;
  SELECT array_agg(COALESCE(n.count, 0) ORDER BY c.ordinality) INTO counts
    FROM jsonb_array_elements(p_counters) WITH ORDINALITY c
    LEFT JOIN ${startCounts} n ON n.counter_key = c.value->>'key' AND n.until > p_now;
  counts := COALESCE(counts, '{}');
  FOR item, ordinal IN SELECT c.value, c.ordinality FROM jsonb_array_elements(p_counters)
    WITH ORDINALITY c LOOP
    IF NOT (item->>'readOnly')::boolean AND counts[ordinal] >= (item->>'limit')::bigint THEN
      claim := 'limited';
      counter := ordinal - 1;
      DELETE FROM ${starts} WHERE start_key = p_start AND owner IS NULL AND record_key IS NULL;
      RETURN;
    END IF;
  END LOOP;
  FOR item, ordinal IN SELECT c.value, c.ordinality FROM jsonb_array_elements(p_counters)
    WITH ORDINALITY c LOOP
    IF NOT (item->>'readOnly')::boolean THEN
      UPDATE ${startCounts} n SET
        count = CASE WHEN n.until > p_now THEN n.count + 1 ELSE 1 END,
        until = CASE WHEN n.until > p_now THEN n.until ELSE p_now + (item->>'ttlMs')::bigint END
      WHERE n.counter_key = item->>'key'
      RETURNING n.count INTO counted;
      counts[ordinal] := counted;
    END IF;
  END LOOP;
  UPDATE ${starts} SET external_user_id = p_user, owner = p_owner, claim_until = p_claim_until,
    drop_at = GREATEST(drop_at, p_claim_until)
  WHERE start_key = p_start;
  claim := 'granted';
END
$$;
`,
  },
];

/** The bookkeeping table of `migrate()`; not needed by users who run their own tool. */
export function migrationsTableSql({ schema, migrations }: TableNames): string {
  return `CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE TABLE IF NOT EXISTS ${migrations} (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`;
}
