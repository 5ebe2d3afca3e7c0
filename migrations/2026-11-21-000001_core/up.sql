-- Accounts: people who play. Email is unique case-insensitively.
CREATE TABLE accounts (
    id BIGSERIAL PRIMARY KEY,
    email TEXT NOT NULL,
    email_lower TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    email_notifications BOOLEAN NOT NULL DEFAULT TRUE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Games: the current snapshot of each game, so a move never replays the log.
-- `seed` never leaves the server; `snapshot` is the engine state, exactly as serialised.
CREATE TABLE games (
    id BIGSERIAL PRIMARY KEY,
    game_type TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    options JSONB NOT NULL,
    players INTEGER NOT NULL CHECK (players BETWEEN 1 AND 16),
    status TEXT NOT NULL CHECK (status IN ('open', 'active', 'finished')),
    version BIGINT NOT NULL DEFAULT 0,
    seed BYTEA NOT NULL,
    snapshot TEXT,
    to_act INTEGER[] NOT NULL DEFAULT '{}',
    result JSONB,
    created_by BIGINT NOT NULL REFERENCES accounts (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((status = 'open') = (snapshot IS NULL))
);
CREATE INDEX games_status_idx ON games (status, updated_at DESC);

-- The seat list of each game.
CREATE TABLE game_seats (
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat >= 0),
    account_id BIGINT NOT NULL REFERENCES accounts (id),
    joined_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, account_id)
);
CREATE INDEX game_seats_account_idx ON game_seats (account_id);

-- The action log: append-only. `seq` is the game version the action produced.
-- `public_action` is what players outside `seen_by` see (NULL: the action is public).
CREATE TABLE game_actions (
    game_id BIGINT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL CHECK (seq >= 1),
    seat INTEGER NOT NULL,
    action JSONB NOT NULL,
    public_action JSONB,
    seen_by INTEGER[] NOT NULL DEFAULT '{}',
    description TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION turnpost_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'game_actions is append-only';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_actions_append_only
    BEFORE UPDATE OR DELETE ON game_actions
    FOR EACH ROW EXECUTE FUNCTION turnpost_refuse_change();

-- Notifications to send. `dedupe_key` makes enqueueing idempotent; the worker marks
-- `sent_at` right after a successful send.
CREATE TABLE outbox (
    id BIGSERIAL PRIMARY KEY,
    dedupe_key TEXT NOT NULL UNIQUE,
    account_id BIGINT REFERENCES accounts (id),
    game_id BIGINT REFERENCES games (id),
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    body_text TEXT NOT NULL,
    body_html TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    sent_at TIMESTAMPTZ,
    failed_at TIMESTAMPTZ,
    last_error TEXT
);
CREATE INDEX outbox_pending_idx ON outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
