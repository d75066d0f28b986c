-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- endpoints, deliveries and attempts are keyed (tenant_id, …), an attempt
-- carries its delivery's tenant, and the foreign keys between them
-- include it, so that a sharded Postgres (Citus) keeps a tenant's
-- webhooks together. The delivery queue finds a delivery or an endpoint
-- by its id alone, through an index of its own.
ALTER TABLE webhook_attempts ADD COLUMN tenant_id TEXT;

--bun:split

UPDATE webhook_attempts AS a SET tenant_id = d.tenant_id FROM webhook_deliveries AS d WHERE d.id = a.delivery_id;

--bun:split

ALTER TABLE webhook_attempts ALTER COLUMN tenant_id SET NOT NULL;

--bun:split

ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;

--bun:split

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey;

--bun:split

ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;

--bun:split

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;

--bun:split

ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_pkey;

--bun:split

ALTER TABLE webhook_endpoints ADD PRIMARY KEY (tenant_id, id);

--bun:split

ALTER TABLE webhook_deliveries ADD PRIMARY KEY (tenant_id, id);

--bun:split

ALTER TABLE webhook_attempts ADD PRIMARY KEY (tenant_id, delivery_id, number);

--bun:split

ALTER TABLE webhook_deliveries ADD FOREIGN KEY (tenant_id, endpoint_id)
    REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE;

--bun:split

ALTER TABLE webhook_attempts ADD FOREIGN KEY (tenant_id, delivery_id)
    REFERENCES webhook_deliveries (tenant_id, id) ON DELETE CASCADE;

--bun:split

DROP INDEX webhook_endpoints_tenant_idx;

--bun:split

CREATE INDEX webhook_endpoints_id_idx ON webhook_endpoints (id);

--bun:split

CREATE INDEX webhook_deliveries_id_idx ON webhook_deliveries (id);

--bun:split

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, number);
