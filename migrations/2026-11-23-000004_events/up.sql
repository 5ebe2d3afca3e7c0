-- Every change of a game row is announced on channel `turnpost_events` (delivered at
-- commit), with the accounts seated and those the game waits for, so every server node
-- on this database can push it to its live clients (GET /api/v1/me/events). A trigger,
-- so no code path that changes a game can forget it.
CREATE FUNCTION turnpost_announce_game() RETURNS trigger AS $$
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

CREATE TRIGGER games_announce
    AFTER UPDATE ON games
    FOR EACH ROW EXECUTE FUNCTION turnpost_announce_game();
