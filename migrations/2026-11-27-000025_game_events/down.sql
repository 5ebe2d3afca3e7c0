DROP TRIGGER games_announce ON games;
CREATE TRIGGER games_announce
    AFTER UPDATE ON games
    FOR EACH ROW
    WHEN (current_setting('turnpost.announce', true) IS DISTINCT FROM 'server')
    EXECUTE FUNCTION turnpost_announce_game();

CREATE OR REPLACE FUNCTION turnpost_announce_game() RETURNS trigger AS $$
BEGIN
    -- A move written without the row lock is announced by the server after its commit.
    IF current_setting('turnpost.announce', true) = 'server' THEN
        RETURN NULL;
    END IF;
    PERFORM pg_notify('turnpost_events', json_build_object(
        'game', NEW.id,
        'version', NEW.version,
        'status', NEW.status,
        'to_act', NEW.to_act,
        'accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats WHERE game_id = NEW.id), '[]'::json),
        'to_act_accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats
                                     WHERE game_id = NEW.id AND seat = ANY(NEW.deciding)), '[]'::json),
        'lobby', NOT NEW.private AND (NEW.status = 'open' OR OLD.status = 'open')
    )::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION turnpost_announce(p_payload TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_notify('turnpost_events', p_payload);
    RETURN TRUE;
END
$$;

DROP FUNCTION turnpost_store_event(JSONB);
DROP TABLE game_events;
