-- One row per invoice. Line items and metadata are JSON text in the row:
-- they are always read and written with their invoice, never queried.
-- received and refunded are the running sums behind amount_paid, kept
-- apart so that payments and refunds give the same result in any order.
CREATE TABLE invoices (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             TEXT NOT NULL,
    number         TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
    customer_name  TEXT NOT NULL,
    customer_email TEXT NOT NULL,
    currency       TEXT NOT NULL,
    line_items     TEXT NOT NULL,
    subtotal       BIGINT NOT NULL CHECK (subtotal >= 0),
    tax            BIGINT NOT NULL CHECK (tax >= 0),
    total          BIGINT NOT NULL CHECK (total >= 0),
    amount_paid    BIGINT NOT NULL CHECK (amount_paid >= 0),
    amount_due     BIGINT NOT NULL CHECK (amount_due >= 0),
    received       BIGINT NOT NULL DEFAULT 0 CHECK (received >= 0),
    refunded       BIGINT NOT NULL DEFAULT 0 CHECK (refunded >= 0),
    due_date       TEXT,
    memo           TEXT NOT NULL,
    metadata       TEXT NOT NULL,
    created_at     TIMESTAMP NOT NULL,
    finalized_at   TIMESTAMP,
    paid_at        TIMESTAMP,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, number)
);

--bun:split

-- The primary key (tenant_id, id) already serves the unfiltered list,
-- newest first, by scanning backwards; these serve its two filters.
CREATE INDEX invoices_tenant_status_idx ON invoices (tenant_id, status, id);

--bun:split

CREATE INDEX invoices_tenant_customer_email_idx ON invoices (tenant_id, customer_email, id);

--bun:split

-- The one lookup without a tenant: a payment provider's webhook names only
-- the invoice id (billing.Service.TenantOf).
CREATE INDEX invoices_id_idx ON invoices (id);

--bun:split

-- Each tenant's invoice counter, advanced in the transaction that inserts
-- the invoice: a rollback gives the number back, so numbers are gapless.
CREATE TABLE invoice_sequences (
    tenant_id   TEXT PRIMARY KEY REFERENCES tenants (id),
    last_number BIGINT NOT NULL CHECK (last_number > 0)
);
