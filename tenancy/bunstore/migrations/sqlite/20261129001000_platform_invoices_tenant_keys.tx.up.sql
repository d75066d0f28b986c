-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- a platform invoice's primary key is (tenant_id, id), its number unique
-- per tenant (see the Postgres migration). SQLite changes keys by
-- rebuilding the table.
CREATE TABLE platform_invoices_keyed (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    id           TEXT NOT NULL,
    number       BIGINT NOT NULL,
    period_start TIMESTAMP NOT NULL,
    period_end   TIMESTAMP NOT NULL,
    currency     TEXT NOT NULL,
    lines        TEXT NOT NULL,
    subtotal     BIGINT NOT NULL,
    total        BIGINT NOT NULL,
    amount_paid  BIGINT NOT NULL,
    status       TEXT NOT NULL,
    due_date     TIMESTAMP NOT NULL,
    reference    TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMP NOT NULL,
    paid_at      TIMESTAMP,
    voided_at    TIMESTAMP,
    overdue_at   TIMESTAMP,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, number),
    -- One invoice per tenant and period, whatever the replicas.
    UNIQUE (tenant_id, period_start)
);

--bun:split

INSERT INTO platform_invoices_keyed (tenant_id, id, number, period_start, period_end, currency, lines, subtotal,
    total, amount_paid, status, due_date, reference, created_at, paid_at, voided_at, overdue_at)
SELECT tenant_id, id, number, period_start, period_end, currency, lines, subtotal,
    total, amount_paid, status, due_date, reference, created_at, paid_at, voided_at, overdue_at FROM platform_invoices;

--bun:split

DROP TABLE platform_invoices;

--bun:split

ALTER TABLE platform_invoices_keyed RENAME TO platform_invoices;

--bun:split

CREATE INDEX platform_invoices_id_idx ON platform_invoices (id);

--bun:split

CREATE INDEX platform_invoices_due ON platform_invoices (due_date) WHERE status = 'open';
