-- Drafts are numbered when they are finalized, so that deleting a draft
-- leaves no gap in a tenant's numbers: a draft's number is NULL until then
-- (UNIQUE (tenant_id, number) takes any number of NULLs), and only a draft
-- may have none. Drafts numbered before keep their numbers.
ALTER TABLE invoices ALTER COLUMN number DROP NOT NULL;

--bun:split

ALTER TABLE invoices ADD CONSTRAINT invoices_number_check CHECK (number IS NOT NULL OR status = 'draft');
