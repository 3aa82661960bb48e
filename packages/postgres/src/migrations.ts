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
