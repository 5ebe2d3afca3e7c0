-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE bot) OR EXISTS (SELECT 1 FROM game_seats WHERE bot)
       OR EXISTS (SELECT 1 FROM games WHERE timeout_policy = 'bot') THEN
        RAISE EXCEPTION 'migration 2026-11-26-000012_bot_seats cannot be reverted while data it would destroy exists: bot accounts, seats played by the computer or games with the bot timeout policy exist, and this down drops them';
    END IF;
END
$$;

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
            'vacation_until', (
                SELECT v.ends_at FROM vacations v
                WHERE v.account_id = s.account_id AND v.starts_at <= at AND v.ends_at > at
                ORDER BY v.ends_at DESC LIMIT 1)
        ) ORDER BY s.seat)
        FROM game_seats s JOIN accounts a ON a.id = s.account_id
        WHERE s.game_id = game), '[]'::json);
END
$$;

UPDATE games SET timeout_policy = 'forfeit' WHERE timeout_policy = 'bot';
ALTER TABLE games DROP CONSTRAINT games_timeout_policy_check;
ALTER TABLE games ADD CONSTRAINT games_timeout_policy_check
    CHECK (timeout_policy IN ('forfeit', 'random_move'));
ALTER TABLE game_seats DROP COLUMN bot;
ALTER TABLE accounts DROP COLUMN bot;
