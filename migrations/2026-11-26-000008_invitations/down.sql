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
