-- Chat by email: how far a player's emails about a game have carried its chat
-- (a turn email, a chat email or a digest shows what came after), and the outbox kind of
-- the short chat email sent to a player with no turn email coming.
CREATE TABLE chat_mailed (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    last_mailed_id BIGINT NOT NULL,
    PRIMARY KEY (account_id, game_id)
);

ALTER TABLE outbox DROP CONSTRAINT outbox_kind_known;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_known CHECK (
    kind IS NULL OR kind IN ('turn', 'reminder', 'nudge', 'over', 'takeback', 'answer',
        'digest', 'verify', 'invite', 'sign_up', 'sign_up_taken', 'password_reset', 'webhook',
        'chat')
);
-- The sweep looks for a game's recent chat emails to a player (one an hour at most).
CREATE INDEX outbox_chat_idx ON outbox (game_id, account_id, created_at) WHERE kind = 'chat';

-- Retention: the sweep prunes rows settled before a cutoff (`domain::retention`),
-- and replies processed before it.
CREATE INDEX outbox_settled_idx ON outbox ((COALESCE(sent_at, dropped_at)))
    WHERE failed_at IS NULL;
CREATE INDEX inbound_messages_received_idx ON inbound_messages (received_at);
