-- The ledger of each invoice: one row per payment or refund, from the
-- payment provider's webhook or recorded by the tenant, written in the
-- same transaction as the running sums of the invoice (received,
-- refunded) that it changes. Payments applied before this table existed
-- are in those sums only.
CREATE TABLE invoice_payments (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    id          TEXT NOT NULL,
    invoice_id  TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('payment', 'refund')),
    amount      BIGINT NOT NULL CHECK (amount > 0),
    currency    TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('webhook', 'manual')),
    method      TEXT NOT NULL,
    reference   TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id)
);

--bun:split

-- An invoice's ledger, newest first (Ledger.Payments).
CREATE INDEX invoice_payments_invoice_idx ON invoice_payments (tenant_id, invoice_id, id);
