-- Personal access tokens: named, scoped, revocable one by one. Only the SHA-256 of the
-- secret is kept, so a leaked table does not leak usable tokens. `generation` is the
-- account's token generation at creation: a password change revokes these too.
CREATE TABLE access_tokens (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT[] NOT NULL CONSTRAINT access_tokens_scopes_known
        CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['play', 'account']),
    token_hash BYTEA NOT NULL UNIQUE,
    generation INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at TIMESTAMPTZ,
    expires_at TIMESTAMPTZ
);
CREATE INDEX access_tokens_account ON access_tokens (account_id);

-- Login tokens (JWTs) signed out before they expire, by their `jti`; a row is useless
-- once its token has expired, and is then deleted.
CREATE TABLE revoked_logins (
    jti TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX revoked_logins_expiry ON revoked_logins (expires_at);
