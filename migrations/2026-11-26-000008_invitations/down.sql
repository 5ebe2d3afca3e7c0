-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM invitations) OR EXISTS (SELECT 1 FROM games WHERE private) THEN
        RAISE EXCEPTION 'migration 2026-11-26-000008_invitations cannot be reverted while data it would destroy exists: invitations or private games exist, and this down drops them (a private game would become public)';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION turnpost_announce_game() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('turnpost_events', json_build_object(
        'game', NEW.id,
        'version', NEW.version,
        'status', NEW.status,
        'accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats WHERE game_id = NEW.id), '[]'::json),
        'to_act_accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats
                                     WHERE game_id = NEW.id AND seat = ANY(NEW.to_act)), '[]'::json)
    )::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
DROP TABLE invitations;
ALTER TABLE games DROP COLUMN private;
