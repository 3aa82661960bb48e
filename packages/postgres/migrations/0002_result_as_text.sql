-- The result is kept as the JSON text the application wrote, not as jsonb: jsonb refuses
-- the escapes \u0000 and lone surrogates (\ud800), which a result's strings may carry, and
-- a result the store cannot hold would be delivered again at every attempt.
ALTER TABLE public.faceverify_sessions ALTER COLUMN result TYPE text USING result::text;
