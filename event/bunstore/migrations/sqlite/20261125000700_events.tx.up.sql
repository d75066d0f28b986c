CREATE TABLE events (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT,
    type          TEXT NOT NULL,
    actor_type    TEXT NOT NULL,
    actor_id      TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    auth_method   TEXT NOT NULL,
    client_ip     TEXT NOT NULL,
    request_id    TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    data          TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL
);

--bun:split

CREATE INDEX events_tenant_idx ON events (tenant_id, id);

--bun:split

CREATE INDEX events_tenant_type_idx ON events (tenant_id, type, id);

--bun:split

CREATE INDEX events_tenant_resource_idx ON events (tenant_id, resource_id, id);

--bun:split

CREATE INDEX events_created_idx ON events (created_at);
