-- The paid add-on modules of each tenant's contract (catalog plan add_ons).
-- The plan and the seats of the contract are tenants.plan_id and
-- tenants.seats; together they are tenancy.Contract.
CREATE TABLE contract_add_ons (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    module    TEXT NOT NULL,
    added_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, module)
);
