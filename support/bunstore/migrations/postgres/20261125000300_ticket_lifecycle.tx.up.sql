-- Service level targets (module support.sla): the due times are set at
-- creation when the module is on, else left NULL; sla_breached is NULL on a
-- ticket without targets, false until a target is missed, then true for
-- good (set by one conditional UPDATE, so that it is set and announced once).
ALTER TABLE tickets ADD COLUMN first_response_due_at TIMESTAMPTZ;

--bun:split

ALTER TABLE tickets ADD COLUMN resolution_due_at TIMESTAMPTZ;

--bun:split

ALTER TABLE tickets ADD COLUMN first_responded_at TIMESTAMPTZ;

--bun:split

ALTER TABLE tickets ADD COLUMN sla_breached BOOLEAN;

--bun:split

-- The satisfaction rating (module support.csat): all NULL until the ticket
-- is rated, once. satisfaction_comment is NULL when the rater wrote none.
ALTER TABLE tickets ADD COLUMN satisfaction_score INTEGER;

--bun:split

ALTER TABLE tickets ADD COLUMN satisfaction_comment TEXT;

--bun:split

ALTER TABLE tickets ADD COLUMN satisfaction_rated_by TEXT;

--bun:split

ALTER TABLE tickets ADD COLUMN satisfaction_rated_at TIMESTAMPTZ;

--bun:split

-- The scheduler's scan for missed targets (SLAOverdue) reads only tickets
-- still at risk: these partial indexes hold nothing else, so the scan does
-- not grow with the tickets that were solved, closed or already marked.
-- The predicates are repeated word for word by the query, which is what
-- lets both databases use them.
CREATE INDEX tickets_sla_response_idx ON tickets (first_response_due_at)
    WHERE sla_breached = false AND status NOT IN ('solved', 'closed') AND first_responded_at IS NULL;

--bun:split

CREATE INDEX tickets_sla_resolution_idx ON tickets (resolution_due_at)
    WHERE sla_breached = false AND status NOT IN ('solved', 'closed');

--bun:split

-- A ticket's thread. author_name is '' when unknown (agents). The foreign
-- key keeps every comment on a ticket of its own tenant.
CREATE TABLE ticket_comments (
    tenant_id   TEXT NOT NULL,
    id          TEXT NOT NULL,
    ticket_id   TEXT NOT NULL,
    author_type TEXT NOT NULL,
    author_id   TEXT NOT NULL,
    author_name TEXT NOT NULL,
    body        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, ticket_id) REFERENCES tickets (tenant_id, id)
);

--bun:split

-- Threads are read oldest first, a page at a time: one range scan.
CREATE INDEX ticket_comments_ticket_idx ON ticket_comments (tenant_id, ticket_id, id);
