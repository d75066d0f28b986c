-- Operators settle unmatched events by hand: applied to the invoice they
-- matched, or dismissed with a reason. SQLite cannot change a CHECK
-- constraint, so the table is rebuilt with the new outcome.
CREATE TABLE webhook_events_settled (
    id           TEXT PRIMARY KEY,
    type         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    outcome      TEXT NOT NULL CHECK (outcome IN ('pending', 'applied', 'ignored', 'unmatched', 'dismissed')),
    reason       TEXT NOT NULL DEFAULT '',
    tenant_id    TEXT,
    invoice_id   TEXT,
    received_at  TIMESTAMP NOT NULL,
    processed_at TIMESTAMP
);

--bun:split

INSERT INTO webhook_events_settled (id, type, payload, outcome, reason, tenant_id, invoice_id, received_at, processed_at)
SELECT id, type, payload, outcome, reason, tenant_id, invoice_id, received_at, processed_at FROM webhook_events;

--bun:split

DROP TABLE webhook_events;

--bun:split

ALTER TABLE webhook_events_settled RENAME TO webhook_events;

--bun:split

CREATE INDEX webhook_events_outcome_idx ON webhook_events (outcome, received_at);

--bun:split

-- The operators' list pages through one outcome by id.
CREATE INDEX webhook_events_outcome_id_idx ON webhook_events (outcome, id);
