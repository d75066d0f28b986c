-- Test tenants live on their own clock (test_clock); billed_through is
-- the start of a tenant's first period not invoiced yet (NULL for tenants
-- from before billing: billed from the first run's period).
ALTER TABLE tenants ADD COLUMN test BOOLEAN NOT NULL DEFAULT FALSE;

--bun:split

ALTER TABLE tenants ADD COLUMN test_clock TIMESTAMPTZ;

--bun:split

ALTER TABLE tenants ADD COLUMN billed_through TIMESTAMPTZ;

--bun:split

CREATE INDEX tenants_to_bill ON tenants (billed_through, id) WHERE NOT test;

--bun:split

-- What a billing period recorded besides the current terms: the terms it
-- opened with and the prorations of the changes made in it (JSON).
CREATE TABLE contract_periods (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    period_start TIMESTAMPTZ NOT NULL,
    opening      TEXT NOT NULL,
    prorations   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, period_start)
);

--bun:split

-- The platform-wide invoice counter: one row, tenant_id 'platform'.
CREATE TABLE platform_invoice_numbers (
    tenant_id   TEXT PRIMARY KEY,
    last_number BIGINT NOT NULL
);

--bun:split

CREATE TABLE platform_invoices (
    id           TEXT PRIMARY KEY,
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    number       BIGINT NOT NULL UNIQUE,
    period_start TIMESTAMPTZ NOT NULL,
    period_end   TIMESTAMPTZ NOT NULL,
    currency     TEXT NOT NULL,
    lines        TEXT NOT NULL,
    subtotal     BIGINT NOT NULL,
    total        BIGINT NOT NULL,
    amount_paid  BIGINT NOT NULL,
    status       TEXT NOT NULL,
    due_date     TIMESTAMPTZ NOT NULL,
    reference    TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    paid_at      TIMESTAMPTZ,
    voided_at    TIMESTAMPTZ,
    overdue_at   TIMESTAMPTZ,
    -- One invoice per tenant and period, whatever the replicas.
    UNIQUE (tenant_id, period_start)
);

--bun:split

CREATE INDEX platform_invoices_tenant ON platform_invoices (tenant_id, id);

--bun:split

CREATE INDEX platform_invoices_due ON platform_invoices (due_date) WHERE status = 'open';
