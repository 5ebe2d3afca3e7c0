-- A seat given up (resigned or forfeited on time) in a game of three or more, which the
-- computer plays on, offered to a person by a player still in the game:
-- the offer, and once taken, the hand-over. `left_account_id` is the account that gave the
-- seat up: it keeps the loss (rated last) though the seat is then played by
-- `replacement_id`, who is not rated for the game. One hand-over per seat.
CREATE TABLE seat_replacements (
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat INT NOT NULL,
    left_account_id BIGINT NOT NULL REFERENCES accounts (id),
    offered_by BIGINT NOT NULL REFERENCES accounts (id),
    offered_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    replacement_id BIGINT REFERENCES accounts (id),
    taken_at TIMESTAMPTZ,
    -- The game's version when the seat was taken: the log's entries for the seat up to it
    -- are the leaver's (and the computer's), those after it the replacement's.
    taken_at_version BIGINT,
    -- Whether the leaver gave the seat up by running out of time (else by resigning), as
    -- known when the seat was taken: its reliability record counts it so.
    left_on_time BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (game_id, seat),
    CONSTRAINT seat_replacement_taken_whole CHECK (
        (replacement_id IS NULL) = (taken_at IS NULL)
        AND (replacement_id IS NULL) = (taken_at_version IS NULL)
    ),
    CONSTRAINT seat_replacement_not_the_leaver CHECK (replacement_id <> left_account_id)
);
-- The lobby lists the offers not yet taken.
CREATE INDEX seat_replacements_open ON seat_replacements (offered_at) WHERE replacement_id IS NULL;
CREATE INDEX seat_replacements_left ON seat_replacements (left_account_id);
CREATE INDEX seat_replacements_replacement ON seat_replacements (replacement_id)
    WHERE replacement_id IS NOT NULL;
