CREATE TABLE tenants (
    id         TEXT PRIMARY KEY,
    slug       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    plan_id    TEXT NOT NULL,
    seats      INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL
);

--bun:split

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

--bun:split

CREATE TABLE memberships (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    user_id    TEXT NOT NULL REFERENCES users (id),
    role       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

--bun:split

CREATE INDEX memberships_user_idx ON memberships (user_id);

--bun:split

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

--bun:split

CREATE TABLE tenant_selections (
    credential TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    updated_at TIMESTAMP NOT NULL
);

--bun:split

CREATE TABLE usage_counters (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    feature   TEXT NOT NULL,
    period    TEXT NOT NULL,
    used      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, feature, period)
);

--bun:split

CREATE TABLE limit_overrides (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    feature   TEXT NOT NULL,
    lim       BIGINT,
    PRIMARY KEY (tenant_id, feature)
);

--bun:split

CREATE TABLE module_toggles (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    module     TEXT NOT NULL,
    enabled    BOOLEAN NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, module)
);
