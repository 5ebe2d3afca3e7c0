-- The seats of a game with their players' details and any vacation under way at `at`, as
-- one JSON array ordered by seat. Every move, resignation, nudge and read starts with it.
-- A PL/pgSQL function keeps its plan for the session; the same query sent as text was
-- parsed and planned anew each time, which was most of PostgreSQL's work per move.
CREATE FUNCTION game_seats_json(game BIGINT, at TIMESTAMPTZ) RETURNS JSON
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN COALESCE((
        SELECT json_agg(json_build_object(
            'seat', s.seat,
            'account_id', s.account_id,
            'name', a.name,
            'email', a.email,
            'email_notifications', a.email_notifications,
            'daily_digest', a.daily_digest,
            'clock_ms', s.clock_ms,
            'clock_since', s.clock_since,
            'email_verified', a.email_verified_at IS NOT NULL,
            'email_bouncing', a.email_bouncing_at IS NOT NULL,
            'muted', s.muted,
            'vacation_until', (
                SELECT v.ends_at FROM vacations v
                WHERE v.account_id = s.account_id AND v.starts_at <= at AND v.ends_at > at
                ORDER BY v.ends_at DESC LIMIT 1)
        ) ORDER BY s.seat)
        FROM game_seats s JOIN accounts a ON a.id = s.account_id
        WHERE s.game_id = game), '[]'::json);
END
$$;

-- A turn email owed to a seat, due after the grace period: a pending one of the same game
-- and seat (not claimed by a sender right now) takes the new turn and is due later;
-- without one, a new row is written. A claimed row is left alone (the worker drops it if
-- the seat has acted since). A key already present means this turn is owed already.
-- Runs on every move: as a function its plans are kept for the session.
CREATE FUNCTION owe_turn_email(
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
