-- Contract change requests (billing.ContractRequest). Exactly one of
-- plan_id, module_id and seats is set, as type says. effective_at is set
-- when a request is approved: when it takes (or took) effect.
CREATE TABLE contract_requests (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    id           TEXT COLLATE "C" NOT NULL,
    type         TEXT NOT NULL CHECK (type IN ('change_plan', 'add_module', 'remove_module', 'change_seats')),
    plan_id      TEXT,
    module_id    TEXT,
    seats        INTEGER CHECK (seats > 0),
    effective    TEXT NOT NULL CHECK (effective IN ('next_period', 'immediately')),
    note         TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'applied', 'rejected', 'cancelled')),
    submitted_by TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    decided_at   TIMESTAMPTZ,
    effective_at TIMESTAMPTZ,
    applied_at   TIMESTAMPTZ,
    reason       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, id)
);

--bun:split

-- At most one pending request per tenant and type, under any concurrency:
-- the second insert waits for the first and then conflicts (409).
CREATE UNIQUE INDEX contract_requests_one_pending_idx ON contract_requests (tenant_id, type) WHERE status = 'pending';

--bun:split

-- The ?status= filter of the list, newest first.
CREATE INDEX contract_requests_tenant_status_idx ON contract_requests (tenant_id, status, id);

--bun:split

-- The two lookups without a tenant: an operator's decision names only the
-- request id, and the scheduler looks for approved requests that are due.
CREATE INDEX contract_requests_id_idx ON contract_requests (id);

--bun:split

CREATE INDEX contract_requests_due_idx ON contract_requests (effective_at, id) WHERE status = 'approved';
