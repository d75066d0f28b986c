CREATE TABLE idempotency_keys (
    tenant_id    TEXT NOT NULL,
    credential   TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    content_type TEXT NOT NULL DEFAULT '',
    location     TEXT NOT NULL DEFAULT '',
    body         BYTEA,
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, credential, key)
);

--bun:split

CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
