-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- endpoints, deliveries and attempts are keyed (tenant_id, …), with
-- foreign keys that include it (see the Postgres migration). SQLite
-- changes keys by rebuilding the tables: their rows are set aside, the
-- tables dropped children first (so that no cascade reaches a row) and
-- made again parents first, the rows put back, then the indexes and the
-- endpoint counter's triggers (made last, so that putting the endpoints
-- back counts nothing twice).
CREATE TEMP TABLE keep_webhook_endpoints AS SELECT * FROM webhook_endpoints;

--bun:split

CREATE TEMP TABLE keep_webhook_deliveries AS SELECT * FROM webhook_deliveries;

--bun:split

CREATE TEMP TABLE keep_webhook_attempts AS
SELECT d.tenant_id AS tenant_id, a.* FROM webhook_attempts AS a JOIN webhook_deliveries AS d ON d.id = a.delivery_id;

--bun:split

DROP TABLE webhook_attempts;

--bun:split

DROP TABLE webhook_deliveries;

--bun:split

DROP TABLE webhook_endpoints;

--bun:split

CREATE TABLE webhook_endpoints (
    tenant_id                  TEXT NOT NULL,
    id                         TEXT NOT NULL,
    url                        TEXT NOT NULL,
    description                TEXT NOT NULL,
    event_types                TEXT NOT NULL,
    enabled                    BOOLEAN NOT NULL,
    disabled_reason            TEXT NOT NULL,
    secret                     TEXT NOT NULL,
    previous_secret            TEXT NOT NULL,
    secret_rotated_at          TIMESTAMP,
    previous_secret_expires_at TIMESTAMP,
    failing_since              TIMESTAMP,
    created_at                 TIMESTAMP NOT NULL,
    updated_at                 TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

--bun:split

CREATE TABLE webhook_deliveries (
    tenant_id       TEXT NOT NULL,
    id              TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL,
    payload         TEXT NOT NULL,
    attempt_count   INTEGER NOT NULL,
    round_start     INTEGER NOT NULL,
    retries         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
);

--bun:split

CREATE TABLE webhook_attempts (
    tenant_id    TEXT NOT NULL,
    delivery_id  TEXT NOT NULL,
    number       INTEGER NOT NULL,
    status       TEXT NOT NULL,
    http_status  INTEGER NOT NULL,
    latency_ms   BIGINT NOT NULL,
    response     TEXT NOT NULL,
    attempted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, delivery_id, number),
    FOREIGN KEY (tenant_id, delivery_id) REFERENCES webhook_deliveries (tenant_id, id) ON DELETE CASCADE
);

--bun:split

INSERT INTO webhook_endpoints (tenant_id, id, url, description, event_types, enabled, disabled_reason, secret,
    previous_secret, secret_rotated_at, previous_secret_expires_at, failing_since, created_at, updated_at)
SELECT tenant_id, id, url, description, event_types, enabled, disabled_reason, secret,
    previous_secret, secret_rotated_at, previous_secret_expires_at, failing_since, created_at, updated_at
FROM keep_webhook_endpoints;

--bun:split

INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, payload, attempt_count,
    round_start, retries, next_attempt_at, created_at, updated_at)
SELECT tenant_id, id, endpoint_id, event_id, event_type, status, payload, attempt_count,
    round_start, retries, next_attempt_at, created_at, updated_at
FROM keep_webhook_deliveries;

--bun:split

INSERT INTO webhook_attempts (tenant_id, delivery_id, number, status, http_status, latency_ms, response, attempted_at)
SELECT tenant_id, delivery_id, number, status, http_status, latency_ms, response, attempted_at
FROM keep_webhook_attempts;

--bun:split

DROP TABLE keep_webhook_attempts;

--bun:split

DROP TABLE keep_webhook_deliveries;

--bun:split

DROP TABLE keep_webhook_endpoints;

--bun:split

CREATE INDEX webhook_endpoints_id_idx ON webhook_endpoints (id);

--bun:split

CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (tenant_id) WHERE enabled;

--bun:split

CREATE INDEX webhook_deliveries_id_idx ON webhook_deliveries (id);

--bun:split

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

--bun:split

CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id) WHERE status = 'pending';

--bun:split

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, number);

--bun:split

CREATE TRIGGER webhook_endpoints_counted_insert AFTER INSERT ON webhook_endpoints
    FOR EACH ROW WHEN NEW.enabled
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id;
END;

--bun:split

CREATE TRIGGER webhook_endpoints_counted_update AFTER UPDATE OF enabled, tenant_id ON webhook_endpoints
    FOR EACH ROW WHEN OLD.enabled IS NOT NEW.enabled OR OLD.tenant_id IS NOT NEW.tenant_id
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id AND OLD.enabled;
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id AND NEW.enabled;
END;

--bun:split

CREATE TRIGGER webhook_endpoints_counted_delete AFTER DELETE ON webhook_endpoints
    FOR EACH ROW WHEN OLD.enabled
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id;
END;
