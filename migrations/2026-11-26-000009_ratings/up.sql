-- Glicko-2 ratings per game type. A game is rated when it finishes, in the transaction
-- that finishes it; `rated = false` games are never rated.
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT TRUE;

-- The current rating of an account in one game type (a row appears with its first rated
-- game; before that the account has the default rating).
CREATE TABLE ratings (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    game_type TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games_played INTEGER NOT NULL DEFAULT 0 CHECK (games_played >= 0),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, game_type)
);
-- The leaderboard reads one game type in rating order.
CREATE INDEX ratings_leaderboard_idx ON ratings (game_type, rating DESC, account_id);

-- One row per account per rated game: the key makes rating a game twice impossible.
CREATE TABLE rating_history (
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    game_type TEXT NOT NULL,
    rank INTEGER NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    deviation_before DOUBLE PRECISION NOT NULL,
    volatility_before DOUBLE PRECISION NOT NULL,
    rating_after DOUBLE PRECISION NOT NULL,
    deviation_after DOUBLE PRECISION NOT NULL,
    volatility_after DOUBLE PRECISION NOT NULL,
    rated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, account_id)
);
CREATE INDEX rating_history_account_idx ON rating_history (account_id, rated_at DESC, game_id DESC);
