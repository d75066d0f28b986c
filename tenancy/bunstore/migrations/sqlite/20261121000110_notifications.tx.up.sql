CREATE TABLE notifications (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    id         TEXT NOT NULL,
    type       TEXT NOT NULL,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    data       TEXT NOT NULL,
    dedupe_key TEXT,
    created_at TIMESTAMP NOT NULL,
    read_at    TIMESTAMP,
    PRIMARY KEY (tenant_id, id)
);

--bun:split

CREATE INDEX notifications_unread_idx ON notifications (tenant_id, id) WHERE read_at IS NULL;

--bun:split

CREATE UNIQUE INDEX notifications_dedupe_key_idx ON notifications (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL;
