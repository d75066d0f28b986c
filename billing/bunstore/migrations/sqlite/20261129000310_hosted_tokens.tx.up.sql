-- The hosted invoice pages' tokens (billing.Hosted): only the SHA-256 of
-- each invoice's current token, in hex, never the token. The token is
-- derived from the invoice id and version under the server's secret key,
-- so that it can be shown again; rotating bumps the version, and the old
-- token's hash is gone at once.
CREATE TABLE invoice_hosted_tokens (
    tenant_id  TEXT NOT NULL,
    invoice_id TEXT NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1),
    token_hash TEXT NOT NULL UNIQUE,
    PRIMARY KEY (tenant_id, invoice_id),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE
);
