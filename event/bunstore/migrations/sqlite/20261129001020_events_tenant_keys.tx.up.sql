-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- the events' primary key is (tenant_id, id), a platform event's tenant_id
-- '' (see the Postgres migration). SQLite changes a primary key by
-- rebuilding the table.
CREATE TABLE events_keyed (
    tenant_id     TEXT NOT NULL DEFAULT '',
    id            TEXT NOT NULL,
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
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

--bun:split

INSERT INTO events_keyed (tenant_id, id, type, actor_type, actor_id, credential_id, auth_method, client_ip,
    request_id, resource_type, resource_id, data, created_at)
SELECT COALESCE(tenant_id, ''), id, type, actor_type, actor_id, credential_id, auth_method, client_ip,
    request_id, resource_type, resource_id, data, created_at FROM events;

--bun:split

DROP TABLE events;

--bun:split

ALTER TABLE events_keyed RENAME TO events;

--bun:split

CREATE INDEX events_id_idx ON events (id);

--bun:split

CREATE INDEX events_tenant_type_idx ON events (tenant_id, type, id);

--bun:split

CREATE INDEX events_tenant_resource_idx ON events (tenant_id, resource_id, id);
