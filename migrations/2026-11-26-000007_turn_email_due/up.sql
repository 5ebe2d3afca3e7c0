-- A pending turn email that takes a newer turn must not move in any index: its indexed
-- columns (`dedupe_key`, `next_attempt_at`) were rewritten on every move, so each move's
-- update was a new row version in all five indexes of the table. Now a newer turn writes
-- only `version` and `due_at`, which no index holds, so PostgreSQL updates the row in
-- place on its page (a HOT update). The worker finds such a row at its old due time and
-- moves `next_attempt_at` to `due_at` before it claims anything (see `Worker::claim_due`).
ALTER TABLE outbox ADD COLUMN due_at TIMESTAMPTZ;
-- Room on each page for the in-place versions of the rows updated there.
ALTER TABLE outbox SET (fillfactor = 50);

CREATE OR REPLACE FUNCTION owe_turn_email(
    p_version BIGINT, p_key TEXT, p_grace DOUBLE PRECISION, p_game BIGINT, p_seat INT,
    p_account BIGINT, p_address TEXT
) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    -- A pending row of the same game and seat, not claimed by a sender right now, takes
    -- the newer turn (turn events are written under the game row lock, so versions only
    -- grow). A claimed row is left alone: the worker drops it if the seat has acted since.
    UPDATE outbox SET version = p_version,
        due_at = now() + make_interval(secs => p_grace)
    WHERE kind = 'turn' AND game_id = p_game AND seat = p_seat
      AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL
      AND (claimed_until IS NULL OR claimed_until <= now());
    IF FOUND THEN
        RETURN TRUE;
    END IF;
    -- A key already present means this turn is owed already.
    INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version,
        next_attempt_at, due_at)
    VALUES (p_key, p_account, p_game, p_address, 'turn', p_seat, p_version,
        now() + make_interval(secs => p_grace), now() + make_interval(secs => p_grace))
    ON CONFLICT (dedupe_key) DO NOTHING;
    RETURN FOUND;
END
$$;
