-- Keys that lead with tenant_id (docs/operations.md, "Sharding by tenant"):
-- a platform invoice's primary key is (tenant_id, id) and its number is
-- unique per tenant. The numbers stay unique across the platform: one
-- counter row (platform_invoice_numbers) hands them out under its lock.
ALTER TABLE platform_invoices DROP CONSTRAINT platform_invoices_pkey;

--bun:split

ALTER TABLE platform_invoices ADD PRIMARY KEY (tenant_id, id);

--bun:split

ALTER TABLE platform_invoices DROP CONSTRAINT platform_invoices_number_key;

--bun:split

ALTER TABLE platform_invoices ADD UNIQUE (tenant_id, number);

--bun:split

DROP INDEX platform_invoices_tenant;

--bun:split

-- An invoice by its id alone: the operators' view, the provider's payments.
CREATE INDEX platform_invoices_id_idx ON platform_invoices (id);
