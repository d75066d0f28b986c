-- A claim names the request that holds a key while it runs (status 0), so
-- that only that request can finish it.
ALTER TABLE idempotency_keys ADD COLUMN claim TEXT NOT NULL DEFAULT '';
