CREATE TABLE portal_login_links (
    token_hash TEXT NOT NULL PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    tenant_id  TEXT REFERENCES tenants (id),
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at    TIMESTAMP
);

--bun:split

CREATE INDEX portal_login_links_expires_idx ON portal_login_links (expires_at);

--bun:split

CREATE TABLE portal_secrets (
    name       TEXT NOT NULL PRIMARY KEY,
    value      BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);
