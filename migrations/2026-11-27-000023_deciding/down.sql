-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM games WHERE status = 'active' AND deciding <> to_act) THEN
        RAISE EXCEPTION 'migration 2026-11-27-000023_deciding cannot be reverted while data it would destroy exists: active games have deciders other than the seats to act (a trade offer, a simultaneous step), and going up again would set them to the seats to act';
    END IF;
END
$$;

DROP FUNCTION record_move(BIGINT, BIGINT, BIGINT, JSONB, TEXT, TEXT, INT[], INT[], JSONB, TEXT, INT[], BIGINT[], TEXT[], INT[], BIGINT[], TEXT[], TEXT[], DOUBLE PRECISION);

CREATE FUNCTION record_move(
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
    -- The turn emails owed, as owe_turn_email does for one seat, in one statement: a
    -- seat's pending row not claimed by a sender takes the newer turn, other seats get a
    -- new row (a key already present means the turn is owed already).
    IF cardinality(p_turn_seats) > 0 THEN
        WITH owed AS (
            SELECT * FROM unnest(p_turn_seats, p_turn_accounts, p_turn_addresses, p_turn_keys)
                AS t (seat, account, address, key)
        ), moved AS (
            UPDATE outbox o SET version = v_version,
                due_at = now() + make_interval(secs => p_grace)
            FROM owed
            WHERE o.kind = 'turn' AND o.game_id = p_game AND o.seat = owed.seat
              AND o.sent_at IS NULL AND o.failed_at IS NULL AND o.dropped_at IS NULL
              AND (o.claimed_until IS NULL OR o.claimed_until <= now())
            RETURNING o.seat
        )
        INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version,
            next_attempt_at, due_at)
        SELECT owed.key, owed.account, p_game, owed.address, 'turn', owed.seat, v_version,
            now() + make_interval(secs => p_grace), now() + make_interval(secs => p_grace)
        FROM owed WHERE owed.seat NOT IN (SELECT seat FROM moved)
        ON CONFLICT (dedupe_key) DO NOTHING;
    END IF;
    RETURN v_updated;
END
$$;

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
                                     WHERE game_id = NEW.id AND seat = ANY(NEW.to_act)), '[]'::json)
    )::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

ALTER TABLE games DROP COLUMN deciding;
