-- Every announced change of a game, kept for a while (the sweeper prunes it), so that a
-- live-update client that reconnects can be sent what it missed: its SSE `id:` is the
-- row's id, and `Last-Event-ID` says where the client stopped.
CREATE TABLE game_events (
    id BIGSERIAL PRIMARY KEY,
    game_id BIGINT NOT NULL,
    -- The announcement as the NOTIFY carries it (without the id): what a stream needs to
    -- decide who may see it, the same for live and replayed events.
    payload JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX game_events_created_at_idx ON game_events (created_at);
-- Ids never go back, not even after this migration goes down and up again: a browser tab
-- open across it reconnects with the id it last saw, and a new count from 1 would reach it
-- and send that tab the wrong events as the ones it missed. On a database that already has
-- games, the count starts at the clock in microseconds, above any id drawn before it.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM games) THEN
        PERFORM setval('game_events_id_seq',
                       (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT);
    END IF;
END
$$;

-- Stores one announcement and notifies it with its id. Ids must be handed out in commit
-- order: a client that saw id 11 and reconnects is sent ids after 11, so an id 10 that
-- committed after 11 would be lost (and live it would arrive after 11). A transaction-level
-- advisory lock taken just before the id is drawn, and held until commit, makes id order
-- commit order; callers take it as late as they can (the trigger is deferred to commit, the
-- server's announcement is a transaction of its own), so it serialises little more than
-- NOTIFY's own commit lock already does.
CREATE FUNCTION turnpost_store_event(p_payload JSONB) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_id BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(7733100025);
    INSERT INTO game_events (game_id, payload)
    VALUES ((p_payload ->> 'game')::BIGINT, p_payload)
    RETURNING id INTO v_id;
    PERFORM pg_notify('turnpost_events', (p_payload || jsonb_build_object('id', v_id))::text);
    RETURN v_id;
END
$$;

CREATE OR REPLACE FUNCTION turnpost_announce_game() RETURNS trigger AS $$
BEGIN
    PERFORM turnpost_store_event(jsonb_build_object(
        'game', NEW.id,
        'version', NEW.version,
        'status', NEW.status,
        'to_act', NEW.to_act,
        'accounts', COALESCE((SELECT jsonb_agg(account_id) FROM game_seats WHERE game_id = NEW.id), '[]'::jsonb),
        'to_act_accounts', COALESCE((SELECT jsonb_agg(account_id) FROM game_seats
                                     WHERE game_id = NEW.id AND seat = ANY(NEW.deciding)), '[]'::jsonb),
        'lobby', NOT NEW.private AND (NEW.status = 'open' OR OLD.status = 'open')
    ));
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Deferred to commit (see turnpost_store_event); the WHEN of a constraint trigger is still
-- evaluated at the update, so a move the server announces itself is skipped as before.
DROP TRIGGER games_announce ON games;
CREATE CONSTRAINT TRIGGER games_announce
    AFTER UPDATE ON games
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (current_setting('turnpost.announce', true) IS DISTINCT FROM 'server')
    EXECUTE FUNCTION turnpost_announce_game();

CREATE OR REPLACE FUNCTION turnpost_announce(p_payload TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM turnpost_store_event(p_payload::jsonb);
    RETURN TRUE;
END
$$;
