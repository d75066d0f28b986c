-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- a token's hash is unique per tenant (see the Postgres migration).
-- SQLite changes a table's constraints by rebuilding it.
CREATE TABLE invoice_hosted_tokens_keyed (
    tenant_id  TEXT NOT NULL,
    invoice_id TEXT NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1),
    token_hash TEXT NOT NULL,
    PRIMARY KEY (tenant_id, invoice_id),
    UNIQUE (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE
);

--bun:split

INSERT INTO invoice_hosted_tokens_keyed (tenant_id, invoice_id, version, token_hash)
SELECT tenant_id, invoice_id, version, token_hash FROM invoice_hosted_tokens;

--bun:split

DROP TABLE invoice_hosted_tokens;

--bun:split

ALTER TABLE invoice_hosted_tokens_keyed RENAME TO invoice_hosted_tokens;

--bun:split

CREATE INDEX invoice_hosted_tokens_hash_idx ON invoice_hosted_tokens (token_hash);
