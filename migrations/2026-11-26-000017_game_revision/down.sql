DROP FUNCTION turnpost_announce(TEXT);

CREATE OR REPLACE FUNCTION turnpost_announce_game() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('turnpost_events', json_build_object(
        'game', NEW.id,
        'version', NEW.version,
        'status', NEW.status,
        'to_act', NEW.to_act,
        'accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats WHERE game_id = NEW.id), '[]'::json),
        'to_act_accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats
                                     WHERE game_id = NEW.id AND seat = ANY(NEW.to_act)), '[]'::json)
    )::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP INDEX outbox_turn_pending_idx;
DROP TRIGGER vacations_revision ON vacations;
DROP TRIGGER accounts_revision ON accounts;
DROP TRIGGER game_seats_revision ON game_seats;
DROP TRIGGER games_revision ON games;
DROP FUNCTION turnpost_touch_vacation_games();
DROP FUNCTION turnpost_touch_account_games();
DROP FUNCTION turnpost_touch_games_of(BIGINT);
DROP FUNCTION turnpost_touch_seat_game();
DROP FUNCTION turnpost_next_revision();
DROP FUNCTION game_seats_settled_until(BIGINT, TIMESTAMPTZ);
ALTER TABLE games DROP COLUMN revision;
CREATE OR REPLACE FUNCTION record_move(
    p_game BIGINT, p_base BIGINT, p_expected BIGINT, p_entries JSONB, p_snapshot TEXT, p_status TEXT,
    p_to_act INT[], p_result JSONB, p_game_type TEXT,
    p_hook_seats INT[], p_hook_accounts BIGINT[], p_hook_events TEXT[],
    p_turn_seats INT[], p_turn_accounts BIGINT[], p_turn_addresses TEXT[],
    p_turn_keys TEXT[], p_grace DOUBLE PRECISION
) RETURNS TIMESTAMPTZ
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_version BIGINT := p_base + jsonb_array_length(p_entries);
    v_updated TIMESTAMPTZ;
    i INT;
BEGIN
    UPDATE games SET snapshot = p_snapshot, version = v_version, status = p_status,
        to_act = p_to_act, result = p_result, updated_at = now()
    WHERE id = p_game AND (p_expected IS NULL OR version = p_expected)
    RETURNING updated_at INTO v_updated;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO game_actions (game_id, seq, seat, action, public_action, seen_by, description)
    SELECT p_game, p_base + e.n, (e.v ->> 'seat')::INT, e.v -> 'action',
           NULLIF(e.v -> 'public_action', 'null'::jsonb),
           ARRAY(SELECT jsonb_array_elements_text(e.v -> 'seen_by')::INT),
           e.v ->> 'description'
    FROM jsonb_array_elements(p_entries) WITH ORDINALITY AS e (v, n);
    IF cardinality(p_hook_seats) > 0 THEN
        PERFORM owe_webhooks(p_game, v_version, p_game_type, p_hook_seats, p_hook_accounts,
                             p_hook_events);
    END IF;
    FOR i IN 1 .. coalesce(cardinality(p_turn_seats), 0) LOOP
        PERFORM owe_turn_email(v_version, p_turn_keys[i], p_grace, p_game, p_turn_seats[i],
                               p_turn_accounts[i], p_turn_addresses[i]);
    END LOOP;
    RETURN v_updated;
END
$$;
