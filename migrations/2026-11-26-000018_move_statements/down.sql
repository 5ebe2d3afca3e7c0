-- Back to migration game_revision's record_move and the unconditional trigger.

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
    IF p_expected IS NOT NULL THEN
        PERFORM set_config('turnpost.announce', 'server', true);
    END IF;
    UPDATE games SET snapshot = p_snapshot, version = v_version, status = p_status,
        to_act = p_to_act, result = p_result, updated_at = now()
    WHERE id = p_game AND (p_expected IS NULL OR revision = p_expected)
    RETURNING updated_at INTO v_updated;
    -- The row triggers fired with the update: later changes are announced as usual.
    PERFORM set_config('turnpost.announce', '', true);
    IF v_updated IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO game_actions (game_id, seq, seat, action, public_action, seen_by, description)
    SELECT p_game, p_base + e.n, (e.v ->> 'seat')::INT, e.v -> 'action',
           NULLIF(e.v -> 'public_action', 'null'::jsonb),
           ARRAY(SELECT jsonb_array_elements_text(e.v -> 'seen_by')::INT),
           e.v ->> 'description'
    FROM jsonb_array_elements(p_entries) WITH ORDINALITY AS e (v, n);
    -- Most players have no webhook: one index probe instead of a call per move.
    IF cardinality(p_hook_seats) > 0
       AND EXISTS (SELECT 1 FROM webhooks WHERE account_id = ANY (p_hook_accounts)) THEN
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


DROP TRIGGER games_announce ON games;
CREATE TRIGGER games_announce
    AFTER UPDATE ON games
    FOR EACH ROW EXECUTE FUNCTION turnpost_announce_game();
