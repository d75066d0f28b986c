-- The outbox of emails to the tenants' customers (package mail): one row
-- per message, written in the transaction of its cause, which is unique
-- per tenant so that a cause queues one message however often it is
-- replayed. The body is composed when the message is sent, from the
-- invoice; the row keeps where it is (queued, sent, failed).
CREATE TABLE mail_messages (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    id         TEXT NOT NULL,
    cause      TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('invoice', 'reminder', 'receipt')),
    invoice_id TEXT NOT NULL,
    recipient  TEXT NOT NULL,
    message_id TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
    attempts   INTEGER NOT NULL DEFAULT 0,
    error      TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    sent_at    TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, cause),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE
);

--bun:split

-- Serves an invoice's messages, oldest first.
CREATE INDEX mail_messages_invoice_idx ON mail_messages (tenant_id, invoice_id, id);
