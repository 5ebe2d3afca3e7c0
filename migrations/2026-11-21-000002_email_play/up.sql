-- Play by email: inbound replies are processed once (Message-ID), replies thread with
-- In-Reply-To, turn emails carry a Reply-To with a reply token.
CREATE TABLE inbound_messages (
    message_id TEXT PRIMARY KEY,
    from_address TEXT NOT NULL,
    game_id BIGINT REFERENCES games (id) ON DELETE SET NULL,
    outcome TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

ALTER TABLE outbox ADD COLUMN reply_to TEXT;
ALTER TABLE outbox ADD COLUMN in_reply_to TEXT;

-- Seats that forfeited (resigned or timed out under `forfeit`): a bot moves for them when
-- more than one other player is left; they rank last.
ALTER TABLE games ADD COLUMN forfeited INTEGER[] NOT NULL DEFAULT '{}';
-- Clocks: NULL time_control means no clock. {"days_per_move": d, "max_days": m}
ALTER TABLE games ADD COLUMN time_control JSONB;
ALTER TABLE games ADD COLUMN timeout_policy TEXT NOT NULL DEFAULT 'forfeit'
    CHECK (timeout_policy IN ('forfeit', 'random_move'));
ALTER TABLE games ADD COLUMN last_nudge_at TIMESTAMPTZ;

-- A seat's clock: `clock_ms` left as of `clock_since` (NULL: not running).
-- `reminders_sent`: 0, 1 (50 % reminder) or 2 (90 %) for the current running period.
ALTER TABLE game_seats ADD COLUMN clock_ms BIGINT;
ALTER TABLE game_seats ADD COLUMN clock_since TIMESTAMPTZ;
ALTER TABLE game_seats ADD COLUMN reminders_sent INTEGER NOT NULL DEFAULT 0;

-- Each timeout is processed once: the marker is written in the transaction that applies
-- it, under the game row lock.
CREATE TABLE game_timeouts (
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    version BIGINT NOT NULL,
    policy TEXT NOT NULL,
    processed_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, seat, version)
);

-- Reminders and quiet hours, per account.
ALTER TABLE accounts ADD COLUMN reminders BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE accounts ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE accounts ADD COLUMN quiet_from SMALLINT CHECK (quiet_from BETWEEN 0 AND 23);
ALTER TABLE accounts ADD COLUMN quiet_until SMALLINT CHECK (quiet_until BETWEEN 0 AND 23);
-- email_notifications = daily_digest: no turn emails, one digest a day at digest_hour
-- (local time) listing every game awaiting the player.
ALTER TABLE accounts ADD COLUMN daily_digest BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE accounts ADD COLUMN digest_hour SMALLINT NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23);
ALTER TABLE accounts ADD COLUMN last_digest_on DATE;

-- Vacations freeze the account's clocks in every game.
CREATE TABLE vacations (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    starts_at TIMESTAMPTZ NOT NULL,
    ends_at TIMESTAMPTZ NOT NULL CHECK (ends_at > starts_at),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX vacations_account_idx ON vacations (account_id, starts_at);
