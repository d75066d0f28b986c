-- A user's sign-ins (tenancy.Sessions): the session cookie names one by
-- its id (the token's sid) and is refused once it has ended.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    ended_at   TIMESTAMPTZ
);

--bun:split

CREATE INDEX sessions_live_idx ON sessions (user_id) WHERE ended_at IS NULL;
