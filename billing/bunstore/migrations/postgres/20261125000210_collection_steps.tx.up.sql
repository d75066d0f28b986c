-- overdue: the invoice is open and past its due date (billing.Invoice.Overdue).
ALTER TABLE invoices ADD COLUMN overdue BOOLEAN NOT NULL DEFAULT FALSE;

--bun:split

-- Who wrote an uncollectible invoice off: 'manual' (the tenant) or
-- 'dunning' (the collection schedule); '' in every other status.
ALTER TABLE invoices ADD COLUMN uncollectible_reason TEXT NOT NULL DEFAULT ''
    CHECK (uncollectible_reason IN ('', 'manual', 'dunning'));

--bun:split

-- Until now only the tenant could write an invoice off.
UPDATE invoices SET uncollectible_reason = 'manual' WHERE status = 'uncollectible';

--bun:split

-- The steps of the collection schedule taken for each invoice (overdue,
-- reminders, dunning). The primary key is what makes each step happen
-- once: a scheduler inserts the step's row ON CONFLICT DO NOTHING in the
-- transaction that does the step's effect, and only the one that inserted
-- it goes on, on every replica.
CREATE TABLE invoice_collection_steps (
    tenant_id  TEXT NOT NULL,
    invoice_id TEXT NOT NULL,
    step       TEXT NOT NULL,
    outcome    TEXT NOT NULL CHECK (outcome IN ('done', 'skipped')),
    taken_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, invoice_id, step),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE
);

--bun:split

-- collection_done: the invoice went through the whole collection schedule
-- (its last step is recorded), so the scheduler's scan no longer visits
-- it, however long it stays open.
ALTER TABLE invoices ADD COLUMN collection_done BOOLEAN NOT NULL DEFAULT FALSE;

--bun:split

-- The scheduler's scan: open invoices still in the schedule, by due date,
-- across tenants.
CREATE INDEX invoices_collecting_due_date_idx ON invoices (due_date, tenant_id, id)
    WHERE status = 'open' AND NOT collection_done;
