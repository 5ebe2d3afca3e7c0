-- The email replies whose `say` lines were posted, by a hash of their Message-ID. The
-- processed replies themselves are pruned after the retention period; a mail server that
-- delivers one again later must not post its chat twice. Kept with the game; no address.
CREATE TABLE chat_email_replies (
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    message_hash BYTEA NOT NULL,
    PRIMARY KEY (game_id, message_hash)
);
