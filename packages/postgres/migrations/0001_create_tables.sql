CREATE SCHEMA IF NOT EXISTS public;

-- One row per tracked session, or per verified delivery matched to no session.
-- Times are milliseconds since the epoch, always passed in by the application's clock.
CREATE TABLE public.faceverify_sessions (
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
    COALESCE(purge_at, GREATEST(expires_at, due_at) + 86400000)
  ) STORED
);

-- Due open records only: finding work costs in proportion to the due records.
CREATE INDEX faceverify_sessions_due ON public.faceverify_sessions (due_at) WHERE state IN ('pending', 'delivering');
CREATE INDEX faceverify_sessions_user ON public.faceverify_sessions (external_user_id);
CREATE INDEX faceverify_sessions_drop ON public.faceverify_sessions (drop_at);

-- Digests of accepted webhook bodies, for the replay window.
CREATE TABLE public.faceverify_digests (
  digest text PRIMARY KEY,
  until bigint NOT NULL
);

CREATE INDEX faceverify_digests_until ON public.faceverify_digests (until);
