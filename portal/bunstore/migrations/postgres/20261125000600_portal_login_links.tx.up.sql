CREATE TABLE portal_login_links (
    token_hash TEXT NOT NULL PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    tenant_id  TEXT REFERENCES tenants (id),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);

--bun:split

CREATE INDEX portal_login_links_expires_idx ON portal_login_links (expires_at);

--bun:split

CREATE TABLE portal_secrets (
    name       TEXT NOT NULL PRIMARY KEY,
    value      BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
