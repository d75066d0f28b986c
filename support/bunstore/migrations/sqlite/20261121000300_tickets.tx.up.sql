-- The last ticket number handed out per tenant. Create upserts it in the
-- transaction that inserts the ticket, so numbers never repeat.
CREATE TABLE ticket_sequences (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    last_number BIGINT NOT NULL,
    PRIMARY KEY (tenant_id)
);

--bun:split

-- requester_* is a snapshot of the user who opened the ticket (no foreign
-- key: users are platform-wide and may be renamed); assignee_id is the host
-- platform's agent id. tags is a JSON array of strings.
CREATE TABLE tickets (
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    id              TEXT NOT NULL,
    number          BIGINT NOT NULL,
    subject         TEXT NOT NULL,
    description     TEXT NOT NULL,
    status          TEXT NOT NULL,
    priority        TEXT NOT NULL,
    requester_id    TEXT NOT NULL,
    requester_email TEXT NOT NULL,
    requester_name  TEXT NOT NULL,
    assignee_id     TEXT,
    tags            TEXT NOT NULL DEFAULT '[]',
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, number)
);

--bun:split

-- Lists are newest first by id. The primary key (tenant_id, id), scanned
-- backward, already serves the unfiltered list and its keyset pages, so
-- there is no separate (tenant_id, id DESC) index; each filter has an index
-- ending in id so that a filtered page is one range scan too.
CREATE INDEX tickets_status_idx ON tickets (tenant_id, status, id);

--bun:split

CREATE INDEX tickets_priority_idx ON tickets (tenant_id, priority, id);

--bun:split

CREATE INDEX tickets_requester_idx ON tickets (tenant_id, requester_id, id);
