-- Chat at the table: messages of a game's seated players, on the table's
-- channel or on their team's (team games only; `team` is the seat's side). Not part of the
-- game's action log: never replayed, untouched by takebacks. The text is stored
-- neutralised (no control or bidi override characters; see `domain::chat`).
CREATE TABLE chat_messages (
    id BIGSERIAL PRIMARY KEY,
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    channel TEXT NOT NULL CONSTRAINT chat_messages_channel_known
        CHECK (channel IN ('table', 'team')),
    team INTEGER,
    body TEXT NOT NULL CONSTRAINT chat_messages_body_length
        CHECK (char_length(body) BETWEEN 1 AND 1000),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT chat_messages_team_channel CHECK ((channel = 'team') = (team IS NOT NULL))
);
CREATE INDEX chat_messages_game ON chat_messages (game_id, id);
-- The rate limit counts an author's recent messages.
CREATE INDEX chat_messages_author ON chat_messages (account_id, created_at);

-- Who muted whom: a muted player's messages are hidden from the muter everywhere.
CREATE TABLE chat_mutes (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    muted_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, muted_id),
    CONSTRAINT chat_mutes_not_self CHECK (account_id <> muted_id)
);

-- Messages reported to the operator (`turnpost chat reports`), once per reporter.
CREATE TABLE chat_reports (
    id BIGSERIAL PRIMARY KEY,
    message_id BIGINT NOT NULL REFERENCES chat_messages (id) ON DELETE CASCADE,
    reporter_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    reason TEXT NOT NULL DEFAULT '' CONSTRAINT chat_reports_reason_length
        CHECK (char_length(reason) <= 500),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (message_id, reporter_id)
);

-- How far each player has read each game's chat (unread counts in "My games").
CREATE TABLE chat_reads (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    last_read_id BIGINT NOT NULL,
    PRIMARY KEY (account_id, game_id)
);

-- Webhooks may take `chat_message`.
ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check
    CHECK (cardinality(events) > 0
           AND events <@ ARRAY['your_turn', 'offer', 'game_finished', 'chat_message']::TEXT[]);
