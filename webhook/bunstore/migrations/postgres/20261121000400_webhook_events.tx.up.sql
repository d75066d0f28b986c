-- The payment webhook's inbox: one row per verified event, keyed by the
-- provider's event id so that a redelivery finds its id taken (a
-- concurrent one waits on the primary key until the first commits).
--
-- Not tenant-owned: the tenant is only known once the event's invoice has
-- been looked up, and some events name none. tenant_id and invoice_id say
-- what the event matched, when it matched anything; they carry no foreign
-- key, so that the table stays a small shared log beside sharded tenants.
--
-- payload is the body exactly as it was signed, as text: JSONB would
-- re-encode it and refuses some valid JSON (\u0000).
CREATE TABLE webhook_events (
    id           TEXT PRIMARY KEY,
    type         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    outcome      TEXT NOT NULL CHECK (outcome IN ('pending', 'applied', 'ignored', 'unmatched')),
    reason       TEXT NOT NULL DEFAULT '',
    tenant_id    TEXT,
    invoice_id   TEXT,
    received_at  TIMESTAMPTZ NOT NULL,
    processed_at TIMESTAMPTZ
);

--bun:split

-- Operators look for what did not apply: unmatched events, newest first.
CREATE INDEX webhook_events_outcome_idx ON webhook_events (outcome, received_at);
