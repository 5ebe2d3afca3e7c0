-- The computer as a player. A bot account (`accounts.bot`) has no password and gets no
-- mail; "play against the computer" seats such accounts. A seat is played by the computer
-- (`game_seats.bot`) when a bot account holds it, or when the computer took it over after
-- its player's time ran out under the `bot` timeout policy (its player may take it back).
ALTER TABLE accounts ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE game_seats ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE games DROP CONSTRAINT games_timeout_policy_check;
ALTER TABLE games ADD CONSTRAINT games_timeout_policy_check
    CHECK (timeout_policy IN ('forfeit', 'random_move', 'bot'));

CREATE OR REPLACE FUNCTION game_seats_json(game BIGINT, at TIMESTAMPTZ) RETURNS JSON
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
            'bot', s.bot,
            'vacation_until', (
                SELECT v.ends_at FROM vacations v
                WHERE v.account_id = s.account_id AND v.starts_at <= at AND v.ends_at > at
                ORDER BY v.ends_at DESC LIMIT 1)
        ) ORDER BY s.seat)
        FROM game_seats s JOIN accounts a ON a.id = s.account_id
        WHERE s.game_id = game), '[]'::json);
END
$$;
