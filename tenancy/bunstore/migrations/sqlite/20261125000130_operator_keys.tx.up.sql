-- Operator API keys: the platform's own credentials (package
-- tenancy/operator). Only the hash of a secret is stored.
CREATE TABLE operator_keys (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    prefix      TEXT NOT NULL,
    secret_hash TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMP NOT NULL,
    revoked_at  TIMESTAMP
);

--bun:split

-- A tenant's API keys, newest first (operator API, apikey list --tenant).
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id, id);
