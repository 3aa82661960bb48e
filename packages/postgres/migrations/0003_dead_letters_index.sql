-- Dead letters (records closed as failed) in listing order: a page reads its own rows only.
CREATE INDEX faceverify_sessions_dead_letters ON public.faceverify_sessions (purge_at, key) WHERE state = 'failed';
