CREATE TABLE webhook_endpoints (
    id                         TEXT PRIMARY KEY,
    tenant_id                  TEXT NOT NULL,
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
    updated_at                 TIMESTAMP NOT NULL
);

--bun:split

CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id, id);

--bun:split

CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (tenant_id) WHERE enabled;

--bun:split

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL,
    payload         TEXT NOT NULL,
    attempt_count   INTEGER NOT NULL,
    round_start     INTEGER NOT NULL,
    next_attempt_at TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);

--bun:split

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

--bun:split

CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id) WHERE status = 'pending';

--bun:split

CREATE TABLE webhook_attempts (
    delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number       INTEGER NOT NULL,
    status       TEXT NOT NULL,
    http_status  INTEGER NOT NULL,
    latency_ms   BIGINT NOT NULL,
    response     TEXT NOT NULL,
    attempted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (delivery_id, number)
);
