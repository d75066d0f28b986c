-- Drafts are numbered when they are finalized, so that deleting a draft
-- leaves no gap in a tenant's numbers: a draft's number is NULL until then
-- (UNIQUE (tenant_id, number) takes any number of NULLs), and only a draft
-- may have none. Drafts numbered before keep their numbers. SQLite cannot
-- drop a NOT NULL, so the table is rebuilt as its documentation describes
-- (no other table refers to invoices yet); its indexes are made again.
CREATE TABLE invoices_rebuilt (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             TEXT NOT NULL,
    number         TEXT CHECK (number IS NOT NULL OR status = 'draft'),
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

INSERT INTO invoices_rebuilt (tenant_id, id, number, status, customer_name, customer_email, currency,
    line_items, subtotal, tax, total, amount_paid, amount_due, received, refunded,
    due_date, memo, metadata, created_at, finalized_at, paid_at)
SELECT tenant_id, id, number, status, customer_name, customer_email, currency,
    line_items, subtotal, tax, total, amount_paid, amount_due, received, refunded,
    due_date, memo, metadata, created_at, finalized_at, paid_at
FROM invoices;

--bun:split

DROP TABLE invoices;

--bun:split

ALTER TABLE invoices_rebuilt RENAME TO invoices;

--bun:split

CREATE INDEX invoices_tenant_status_idx ON invoices (tenant_id, status, id);

--bun:split

CREATE INDEX invoices_tenant_customer_email_idx ON invoices (tenant_id, customer_email, id);

--bun:split

CREATE INDEX invoices_id_idx ON invoices (id);
