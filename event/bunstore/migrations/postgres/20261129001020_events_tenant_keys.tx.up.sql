-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- the events' primary key is (tenant_id, id), so that a sharded Postgres
-- (Citus) keeps a tenant's events on its node. A platform event, which has
-- no tenant, is stored with tenant_id '' (a distribution column holds no
-- NULL). id alone keeps an index of its own: the operators' view and the
-- retention read by id across tenants.
UPDATE events SET tenant_id = '' WHERE tenant_id IS NULL;

--bun:split

ALTER TABLE events ALTER COLUMN tenant_id SET DEFAULT '';

--bun:split

ALTER TABLE events ALTER COLUMN tenant_id SET NOT NULL;

--bun:split

ALTER TABLE events DROP CONSTRAINT events_pkey;

--bun:split

ALTER TABLE events ADD PRIMARY KEY (tenant_id, id);

--bun:split

DROP INDEX events_tenant_idx;

--bun:split

CREATE INDEX events_id_idx ON events (id);
