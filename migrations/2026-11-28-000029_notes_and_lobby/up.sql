-- Private notes: one free-text note per seat per game, read and written only by
-- the account holding the seat. Keyed by account, so that seats renumbered when someone
-- leaves an open game keep their notes.
CREATE TABLE game_notes (
    game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    body TEXT NOT NULL CONSTRAINT game_notes_body_length CHECK (char_length(body) <= 4000),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX game_notes_account ON game_notes (account_id);

-- What a game's creator asks of those who join it: a minimum reliability share (percent of
-- games played to the end) and a minimum rating in the game's type. No row: none.
CREATE TABLE game_requirements (
    game_id BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    min_reliability INTEGER CONSTRAINT game_requirements_reliability_range
        CHECK (min_reliability BETWEEN 0 AND 100),
    min_rating INTEGER CONSTRAINT game_requirements_rating_range
        CHECK (min_rating BETWEEN 0 AND 4000)
);
