-- The schema tenantkit.Migrate builds on SQLite (tenantkit.Schema's migrations
-- and River's), every migration recorded as applied: a new SQLite database is
-- created from it in one transaction. Generated; do not edit. After adding a
-- migration or upgrading River, rewrite it with
-- `TENANTKIT_UPDATE_SNAPSHOT=1 go test ./ -run TestSQLiteSnapshot`.

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id),
    name        TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    tenant_id   TEXT REFERENCES tenants (id),
    prefix      TEXT NOT NULL,
    secret_hash TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMP NOT NULL,
    revoked_at  TIMESTAMP
);

CREATE TABLE contract_add_ons (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    module    TEXT NOT NULL,
    added_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, module)
);

CREATE TABLE contract_periods (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    period_start TIMESTAMP NOT NULL,
    opening      TEXT NOT NULL,
    prorations   TEXT NOT NULL,
    PRIMARY KEY (tenant_id, period_start)
);

CREATE TABLE contract_requests (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    id           TEXT NOT NULL,
    type         TEXT NOT NULL CHECK (type IN ('change_plan', 'add_module', 'remove_module', 'change_seats')),
    plan_id      TEXT,
    module_id    TEXT,
    seats        INTEGER CHECK (seats > 0),
    effective    TEXT NOT NULL CHECK (effective IN ('next_period', 'immediately')),
    note         TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'applied', 'rejected', 'cancelled')),
    submitted_by TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    decided_at   TIMESTAMP,
    effective_at TIMESTAMP,
    applied_at   TIMESTAMP,
    reason       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE customers (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    id          TEXT NOT NULL,
    name        TEXT NOT NULL,
    name_folded TEXT NOT NULL,
    email       TEXT NOT NULL,
    address     TEXT,
    tax_id      TEXT NOT NULL,
    locale      TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    archived_at TIMESTAMP,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE "events" (
    tenant_id     TEXT NOT NULL DEFAULT '',
    id            TEXT NOT NULL,
    type          TEXT NOT NULL,
    actor_type    TEXT NOT NULL,
    actor_id      TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    auth_method   TEXT NOT NULL,
    client_ip     TEXT NOT NULL,
    request_id    TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    data          TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE idempotency_keys (
    tenant_id    TEXT NOT NULL,
    credential   TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    content_type TEXT NOT NULL DEFAULT '',
    location     TEXT NOT NULL DEFAULT '',
    body         BLOB,
    created_at   TIMESTAMP NOT NULL, claim TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, credential, key)
);

CREATE TABLE invoice_collection_steps (
    tenant_id  TEXT NOT NULL,
    invoice_id TEXT NOT NULL,
    step       TEXT NOT NULL,
    outcome    TEXT NOT NULL CHECK (outcome IN ('done', 'skipped')),
    taken_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, invoice_id, step),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE "invoice_hosted_tokens" (
    tenant_id  TEXT NOT NULL,
    invoice_id TEXT NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1),
    token_hash TEXT NOT NULL,
    PRIMARY KEY (tenant_id, invoice_id),
    UNIQUE (tenant_id, token_hash),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE invoice_payments (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    id          TEXT NOT NULL,
    invoice_id  TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('payment', 'refund')),
    amount      BIGINT NOT NULL CHECK (amount > 0),
    currency    TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('webhook', 'manual')),
    method      TEXT NOT NULL,
    reference   TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id)
);

CREATE TABLE invoice_sequences (
    tenant_id   TEXT PRIMARY KEY REFERENCES tenants (id),
    last_number BIGINT NOT NULL CHECK (last_number > 0)
);

CREATE TABLE "invoices" (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             TEXT NOT NULL,
    number         TEXT CHECK (number IS NOT NULL OR status = 'draft'),
    status         TEXT NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
    customer_name  TEXT NOT NULL,
    customer_email TEXT NOT NULL,
    currency       TEXT NOT NULL,
    line_items     TEXT NOT NULL,
    subtotal       BIGINT NOT NULL CHECK (subtotal >= 0),
    tax            BIGINT NOT NULL CHECK (tax >= 0),
    total          BIGINT NOT NULL CHECK (total >= 0),
    amount_paid    BIGINT NOT NULL CHECK (amount_paid >= 0),
    amount_due     BIGINT NOT NULL CHECK (amount_due >= 0),
    received       BIGINT NOT NULL DEFAULT 0 CHECK (received >= 0),
    refunded       BIGINT NOT NULL DEFAULT 0 CHECK (refunded >= 0),
    due_date       TEXT,
    memo           TEXT NOT NULL,
    metadata       TEXT NOT NULL,
    created_at     TIMESTAMP NOT NULL,
    finalized_at   TIMESTAMP,
    paid_at        TIMESTAMP, overdue BOOLEAN NOT NULL DEFAULT FALSE, uncollectible_reason TEXT NOT NULL DEFAULT ''
    CHECK (uncollectible_reason IN ('', 'manual', 'dunning')), collection_done BOOLEAN NOT NULL DEFAULT FALSE, customer_id TEXT, customer_address TEXT, customer_tax_id TEXT NOT NULL DEFAULT '', customer_locale TEXT NOT NULL DEFAULT 'en',
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, number)
);

CREATE TABLE limit_overrides (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    feature   TEXT NOT NULL,
    lim       BIGINT,
    PRIMARY KEY (tenant_id, feature)
);

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

CREATE TABLE memberships (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    user_id    TEXT NOT NULL REFERENCES users (id),
    role       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

CREATE TABLE module_toggles (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    module     TEXT NOT NULL,
    enabled    BOOLEAN NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, module)
);

CREATE TABLE notifications (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    id         TEXT NOT NULL,
    type       TEXT NOT NULL,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    data       TEXT NOT NULL,
    dedupe_key TEXT,
    created_at TIMESTAMP NOT NULL,
    read_at    TIMESTAMP,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE operator_keys (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    prefix      TEXT NOT NULL,
    secret_hash TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMP NOT NULL,
    revoked_at  TIMESTAMP
);

CREATE TABLE platform_invoice_numbers (
    tenant_id   TEXT PRIMARY KEY,
    last_number BIGINT NOT NULL
);

CREATE TABLE "platform_invoices" (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    id           TEXT NOT NULL,
    number       BIGINT NOT NULL,
    period_start TIMESTAMP NOT NULL,
    period_end   TIMESTAMP NOT NULL,
    currency     TEXT NOT NULL,
    lines        TEXT NOT NULL,
    subtotal     BIGINT NOT NULL,
    total        BIGINT NOT NULL,
    amount_paid  BIGINT NOT NULL,
    status       TEXT NOT NULL,
    due_date     TIMESTAMP NOT NULL,
    reference    TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMP NOT NULL,
    paid_at      TIMESTAMP,
    voided_at    TIMESTAMP,
    overdue_at   TIMESTAMP,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, number),
    -- One invoice per tenant and period, whatever the replicas.
    UNIQUE (tenant_id, period_start)
);

CREATE TABLE portal_login_links (
    token_hash TEXT NOT NULL PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    tenant_id  TEXT REFERENCES tenants (id),
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at    TIMESTAMP
);

CREATE TABLE portal_secrets (
    name       TEXT NOT NULL PRIMARY KEY,
    value      BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE river_job (
    id integer PRIMARY KEY AUTOINCREMENT,
    args blob NOT NULL DEFAULT (jsonb('{}')),
    attempt integer NOT NULL DEFAULT 0,
    attempted_at timestamp,
    attempted_by blob, -- json
    created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    errors blob, -- json
    finalized_at timestamp,
    kind text NOT NULL,
    max_attempts integer NOT NULL DEFAULT 25,
    metadata blob NOT NULL DEFAULT (jsonb('{}')),
    priority integer NOT NULL DEFAULT 1,
    queue text NOT NULL DEFAULT 'default',
    state text NOT NULL DEFAULT 'available',
    scheduled_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    tags blob NOT NULL DEFAULT (jsonb('[]')),
    unique_key blob,
    unique_states integer,
    CONSTRAINT finalized_or_finalized_at_null CHECK (
        (finalized_at IS NULL AND state NOT IN ('cancelled', 'completed', 'discarded')) OR
        (finalized_at IS NOT NULL AND state IN ('cancelled', 'completed', 'discarded'))
    ),
    CONSTRAINT priority_in_range CHECK (priority >= 1 AND priority <= 4),
    CONSTRAINT queue_length CHECK (length(queue) > 0 AND length(queue) < 128),
    CONSTRAINT kind_length CHECK (length(kind) > 0 AND length(kind) < 128),
    CONSTRAINT state_valid CHECK (state IN ('available', 'cancelled', 'completed', 'discarded', 'pending', 'retryable', 'running', 'scheduled'))
);

CREATE TABLE river_leader (
    elected_at timestamp NOT NULL,
    expires_at timestamp NOT NULL,
    leader_id text NOT NULL,
    name text PRIMARY KEY NOT NULL DEFAULT 'default' CHECK (name = 'default'),
    CONSTRAINT name_length CHECK (length(name) > 0 AND length(name) < 128),
    CONSTRAINT leader_id_length CHECK (length(leader_id) > 0 AND length(leader_id) < 128)
);

CREATE TABLE river_migration (
    line text NOT NULL,
    version integer NOT NULL,
    created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT line_length CHECK (length(line) > 0 AND length(line) < 128),
    CONSTRAINT version_gte_1 CHECK (version >= 1),
    PRIMARY KEY (line, version)
);

CREATE TABLE river_notification (
    id integer PRIMARY KEY AUTOINCREMENT,
    created_at timestamp NOT NULL DEFAULT (datetime('now', 'subsec')),
    payload text NOT NULL,
    topic text NOT NULL,
    CONSTRAINT topic_length CHECK (length(topic) > 0 AND length(topic) < 128)
);

CREATE TABLE river_queue (
    name text PRIMARY KEY NOT NULL,
    created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    metadata blob NOT NULL DEFAULT (jsonb('{}')),
    paused_at timestamp,
    updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    ended_at   TIMESTAMP
);

CREATE TABLE tenant_selections (
    credential TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE tenant_settings (
    tenant_id                  TEXT PRIMARY KEY REFERENCES tenants (id),
    payment_link_template      TEXT,
    invoice_footer             TEXT,
    reply_to_email             TEXT,
    default_payment_terms_days INTEGER,
    updated_at                 TIMESTAMP NOT NULL
);

CREATE TABLE tenantkit_migration_locks ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "table_name" VARCHAR, UNIQUE ("table_name"));

CREATE TABLE tenantkit_migrations ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" VARCHAR, "group_id" INTEGER, "migrated_at" TIMESTAMP NOT NULL DEFAULT current_timestamp);

CREATE TABLE tenants (
    id         TEXT PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    plan_id    TEXT NOT NULL,
    seats      INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL
, enabled_webhook_endpoints INTEGER NOT NULL DEFAULT 0, test BOOLEAN NOT NULL DEFAULT 0, test_clock TIMESTAMP, billed_through TIMESTAMP);

CREATE TABLE ticket_comments (
    tenant_id   TEXT NOT NULL,
    id          TEXT NOT NULL,
    ticket_id   TEXT NOT NULL,
    author_type TEXT NOT NULL,
    author_id   TEXT NOT NULL,
    author_name TEXT NOT NULL,
    body        TEXT NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, ticket_id) REFERENCES tickets (tenant_id, id)
);

CREATE TABLE ticket_sequences (
    tenant_id   TEXT NOT NULL REFERENCES tenants (id),
    last_number BIGINT NOT NULL,
    PRIMARY KEY (tenant_id)
);

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
    updated_at      TIMESTAMP NOT NULL, first_response_due_at TIMESTAMP, resolution_due_at TIMESTAMP, first_responded_at TIMESTAMP, sla_breached BOOLEAN, satisfaction_score INTEGER, satisfaction_comment TEXT, satisfaction_rated_by TEXT, satisfaction_rated_at TIMESTAMP,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, number)
);

CREATE TABLE usage_counters (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    feature   TEXT NOT NULL,
    period    TEXT NOT NULL,
    used      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, feature, period)
);

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE webhook_attempts (
    tenant_id    TEXT NOT NULL,
    delivery_id  TEXT NOT NULL,
    number       INTEGER NOT NULL,
    status       TEXT NOT NULL,
    http_status  INTEGER NOT NULL,
    latency_ms   BIGINT NOT NULL,
    response     TEXT NOT NULL,
    attempted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, delivery_id, number),
    FOREIGN KEY (tenant_id, delivery_id) REFERENCES webhook_deliveries (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE webhook_deliveries (
    tenant_id       TEXT NOT NULL,
    id              TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL,
    payload         TEXT NOT NULL,
    attempt_count   INTEGER NOT NULL,
    round_start     INTEGER NOT NULL,
    retries         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE webhook_endpoints (
    tenant_id                  TEXT NOT NULL,
    id                         TEXT NOT NULL,
    url                        TEXT NOT NULL,
    description                TEXT NOT NULL,
    event_types                TEXT NOT NULL,
    enabled                    BOOLEAN NOT NULL,
    disabled_reason            TEXT NOT NULL,
    secret                     TEXT NOT NULL,
    previous_secret            TEXT NOT NULL,
    secret_rotated_at          TIMESTAMP,
    previous_secret_expires_at TIMESTAMP,
    failing_since              TIMESTAMP,
    created_at                 TIMESTAMP NOT NULL,
    updated_at                 TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE "webhook_events" (
    id           TEXT PRIMARY KEY,
    type         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    outcome      TEXT NOT NULL CHECK (outcome IN ('pending', 'applied', 'ignored', 'unmatched', 'dismissed')),
    reason       TEXT NOT NULL DEFAULT '',
    tenant_id    TEXT,
    invoice_id   TEXT,
    received_at  TIMESTAMP NOT NULL,
    processed_at TIMESTAMP
);

CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id, id);

CREATE INDEX contract_requests_due_idx ON contract_requests (effective_at, id) WHERE status = 'approved';

CREATE INDEX contract_requests_id_idx ON contract_requests (id);

CREATE UNIQUE INDEX contract_requests_one_pending_idx ON contract_requests (tenant_id, type) WHERE status = 'pending';

CREATE INDEX contract_requests_tenant_status_idx ON contract_requests (tenant_id, status, id);

CREATE INDEX events_id_idx ON events (id);

CREATE INDEX events_tenant_resource_idx ON events (tenant_id, resource_id, id);

CREATE INDEX events_tenant_type_idx ON events (tenant_id, type, id);

CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

CREATE INDEX invoice_hosted_tokens_hash_idx ON invoice_hosted_tokens (token_hash);

CREATE INDEX invoice_payments_invoice_idx ON invoice_payments (tenant_id, invoice_id, id);

CREATE INDEX invoices_collecting_due_date_idx ON invoices (due_date, tenant_id, id)
    WHERE status = 'open' AND NOT collection_done;

CREATE INDEX invoices_id_idx ON invoices (id);

CREATE INDEX invoices_tenant_customer_email_idx ON invoices (tenant_id, customer_email, id);

CREATE INDEX invoices_tenant_customer_id_idx ON invoices (tenant_id, customer_id, id);

CREATE INDEX invoices_tenant_status_idx ON invoices (tenant_id, status, id);

CREATE INDEX mail_messages_invoice_idx ON mail_messages (tenant_id, invoice_id, id);

CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE UNIQUE INDEX notifications_dedupe_key_idx ON notifications (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL;

CREATE INDEX notifications_unread_idx ON notifications (tenant_id, id) WHERE read_at IS NULL;

CREATE INDEX platform_invoices_due ON platform_invoices (due_date) WHERE status = 'open';

CREATE INDEX platform_invoices_id_idx ON platform_invoices (id);

CREATE INDEX portal_login_links_expires_idx ON portal_login_links (expires_at);

CREATE INDEX river_job_kind ON river_job (kind);

CREATE INDEX river_job_prioritized_fetching_index ON river_job (state, queue, priority, scheduled_at, id);

CREATE INDEX river_job_state_and_finalized_at_index ON river_job (state, finalized_at) WHERE finalized_at IS NOT NULL;

CREATE UNIQUE INDEX river_job_unique_idx ON river_job (unique_key)
    WHERE unique_key IS NOT NULL
        AND unique_states IS NOT NULL
        AND CASE state
            WHEN 'available' THEN unique_states & (1 << 0)
            WHEN 'cancelled' THEN unique_states & (1 << 1)
            WHEN 'completed' THEN unique_states & (1 << 2)
            WHEN 'discarded' THEN unique_states & (1 << 3)
            WHEN 'pending'   THEN unique_states & (1 << 4)
            WHEN 'retryable' THEN unique_states & (1 << 5)
            WHEN 'running'   THEN unique_states & (1 << 6)
            WHEN 'scheduled' THEN unique_states & (1 << 7)
            ELSE 0
        END >= 1;

CREATE INDEX river_notification_created_at_idx ON river_notification (created_at);

CREATE INDEX river_notification_topic_id_idx ON river_notification (topic, id);

CREATE INDEX sessions_live_idx ON sessions (user_id) WHERE ended_at IS NULL;

CREATE INDEX tenants_to_bill ON tenants (billed_through, id) WHERE NOT test;

CREATE INDEX ticket_comments_ticket_idx ON ticket_comments (tenant_id, ticket_id, id);

CREATE INDEX tickets_priority_idx ON tickets (tenant_id, priority, id);

CREATE INDEX tickets_requester_idx ON tickets (tenant_id, requester_id, id);

CREATE INDEX tickets_sla_resolution_idx ON tickets (resolution_due_at)
    WHERE sla_breached = false AND status NOT IN ('solved', 'closed');

CREATE INDEX tickets_sla_response_idx ON tickets (first_response_due_at)
    WHERE sla_breached = false AND status NOT IN ('solved', 'closed') AND first_responded_at IS NULL;

CREATE INDEX tickets_status_idx ON tickets (tenant_id, status, id);

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, number);

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE INDEX webhook_deliveries_id_idx ON webhook_deliveries (id);

CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id) WHERE status = 'pending';

CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (tenant_id) WHERE enabled;

CREATE INDEX webhook_endpoints_id_idx ON webhook_endpoints (id);

CREATE INDEX webhook_events_outcome_id_idx ON webhook_events (outcome, id);

CREATE INDEX webhook_events_outcome_idx ON webhook_events (outcome, received_at);

CREATE TRIGGER webhook_endpoints_counted_delete AFTER DELETE ON webhook_endpoints
    FOR EACH ROW WHEN OLD.enabled
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id;
END;

CREATE TRIGGER webhook_endpoints_counted_insert AFTER INSERT ON webhook_endpoints
    FOR EACH ROW WHEN NEW.enabled
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id;
END;

CREATE TRIGGER webhook_endpoints_counted_update AFTER UPDATE OF enabled, tenant_id ON webhook_endpoints
    FOR EACH ROW WHEN OLD.enabled IS NOT NEW.enabled OR OLD.tenant_id IS NOT NEW.tenant_id
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id AND OLD.enabled;
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id AND NEW.enabled;
END;

INSERT INTO "river_migration" ("line", "version") VALUES
('main', 1),
('main', 2),
('main', 3),
('main', 4),
('main', 5),
('main', 6),
('main', 7),
('main', 8);

INSERT INTO "tenantkit_migrations" ("id", "name", "group_id") VALUES
(1, '20261121000010', 1),
(2, '20261121000011', 1),
(3, '20261121000100', 1),
(4, '20261121000110', 1),
(5, '20261121000120', 1),
(6, '20261121000200', 1),
(7, '20261121000210', 1),
(8, '20261121000300', 1),
(9, '20261121000400', 1),
(10, '20261125000130', 1),
(11, '20261125000200', 1),
(12, '20261125000201', 1),
(13, '20261125000210', 1),
(14, '20261125000300', 1),
(15, '20261125000600', 1),
(16, '20261125000700', 1),
(17, '20261126000410', 1),
(18, '20261126000800', 1),
(19, '20261127000100', 1),
(20, '20261127000130', 1),
(21, '20261127000800', 1),
(22, '20261128000100', 1),
(23, '20261128000800', 1),
(24, '20261129000100', 1),
(25, '20261129000200', 1),
(26, '20261129000300', 1),
(27, '20261129000310', 1),
(28, '20261129000900', 1),
(29, '20261129001000', 1),
(30, '20261129001010', 1),
(31, '20261129001020', 1),
(32, '20261129001030', 1);
