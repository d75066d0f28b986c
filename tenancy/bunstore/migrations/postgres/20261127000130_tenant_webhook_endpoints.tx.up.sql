-- How many enabled webhook endpoints the tenant has. outbound/bunstore's
-- triggers keep it; the entitlement state query reads it with the tenant
-- row, so that a request's events need no query of their own to learn
-- whether there is anywhere to deliver them (tenancy.EntitlementState).
ALTER TABLE tenants ADD COLUMN enabled_webhook_endpoints INTEGER NOT NULL DEFAULT 0;
