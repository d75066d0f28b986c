-- A tenant's customers on record (cus_…), which invoices may name by
-- customer_id. name_folded is the name lower-cased by the server (Go's
-- Unicode folding, the same on both dialects), which ?search= matches as a
-- substring, as it does email (stored lower-case). address and metadata
-- are JSON text, always read and written with their customer; address is
-- NULL when there is none.
CREATE TABLE customers (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    id          TEXT NOT NULL,
    name        TEXT NOT NULL,
    name_folded TEXT NOT NULL,
    email       TEXT NOT NULL,
    address     TEXT,
    tax_id      TEXT NOT NULL,
    locale      TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    archived_at TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

--bun:split

-- An invoice names its customer on record (NULL for an inline customer)
-- and keeps the customer's details beside name and email: copied when the
-- invoice is finalized, kept in step with the customer while it is a
-- draft. Invoices from before keep an inline customer in locale en.
ALTER TABLE invoices ADD COLUMN customer_id TEXT;

--bun:split

ALTER TABLE invoices ADD COLUMN customer_address TEXT;

--bun:split

ALTER TABLE invoices ADD COLUMN customer_tax_id TEXT NOT NULL DEFAULT '';

--bun:split

ALTER TABLE invoices ADD COLUMN customer_locale TEXT NOT NULL DEFAULT 'en';

--bun:split

-- Serves the invoice list's ?customer_id= filter, a customer's drafts
-- (kept in step with it) and its open invoices (what it owes).
CREATE INDEX invoices_tenant_customer_id_idx ON invoices (tenant_id, customer_id, id);
