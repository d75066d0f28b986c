-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- a token's hash is unique per tenant; the page's lookup by hash alone
-- keeps an index of its own. (A 256-bit hash is unique anyway.)
ALTER TABLE invoice_hosted_tokens DROP CONSTRAINT invoice_hosted_tokens_token_hash_key;

--bun:split

ALTER TABLE invoice_hosted_tokens ADD UNIQUE (tenant_id, token_hash);

--bun:split

CREATE INDEX invoice_hosted_tokens_hash_idx ON invoice_hosted_tokens (token_hash);
