CREATE OR REPLACE FUNCTION owe_turn_email(
    p_version BIGINT, p_key TEXT, p_grace DOUBLE PRECISION, p_game BIGINT, p_seat INT,
    p_account BIGINT, p_address TEXT
) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM outbox WHERE dedupe_key = p_key) THEN
        RETURN FALSE;
    END IF;
    UPDATE outbox SET version = p_version, dedupe_key = p_key,
        next_attempt_at = now() + make_interval(secs => p_grace)
    WHERE kind = 'turn' AND game_id = p_game AND seat = p_seat
      AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL
      AND (claimed_until IS NULL OR claimed_until <= now());
    IF FOUND THEN
        RETURN TRUE;
    END IF;
    INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version,
        next_attempt_at)
    VALUES (p_key, p_account, p_game, p_address, 'turn', p_seat, p_version,
        now() + make_interval(secs => p_grace))
    ON CONFLICT (dedupe_key) DO NOTHING;
    RETURN FOUND;
END
$$;
-- Rows waiting for a later turn become due when that turn's grace ends.
UPDATE outbox SET next_attempt_at = due_at
    WHERE due_at > next_attempt_at AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL;
ALTER TABLE outbox RESET (fillfactor);
ALTER TABLE outbox DROP COLUMN due_at;
