-- Sign-ups waiting for their address to be confirmed, where the server requires confirmed
-- addresses: the account is made only when the link mailed to the address is followed,
-- so that signing up tells nobody whether an address has an account. One row
-- per address: a later sign-up replaces it (and its link). Rows older than the link's
-- lifetime are deleted by the next sign-up.
CREATE TABLE sign_ups (
    email_lower TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    -- SHA-256 of the link's random token.
    token_hash BYTEA NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX sign_ups_by_age ON sign_ups (created_at);
