-- The computer's moves (and those of seats given up) per account and hour, in the games the
-- account created: an account may have the computer play so many per 24 hours
-- (`bot_moves_per_account_per_day`). Rows older than the window are deleted as new ones
-- come in.
CREATE TABLE computer_moves (
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    hour TIMESTAMPTZ NOT NULL,
    moves INTEGER NOT NULL CHECK (moves >= 0),
    PRIMARY KEY (account_id, hour)
);

-- Until when the computer waits in this game, its creator's daily allowance being spent:
-- shown in the game's view, and the bot worker passes the game by until then.
ALTER TABLE games ADD COLUMN computer_paused_until TIMESTAMPTZ;
