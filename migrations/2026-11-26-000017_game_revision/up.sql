-- A game's revision counts every change to what a read of the game returns: its row, its
-- seats, and its players' names, addresses, mail settings and vacations. A server keeps
-- the games it read or wrote last (`domain::game_cache`) and trusts a copy only at the
-- revision the database holds: a read compares one number, and a move writes only if the
-- revision is still the one it was worked out on (record_move). Triggers bump it, so no
-- code path that changes a game can forget to.
ALTER TABLE games ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
-- Going down drops the column, and a node that was not restarted may still hold a game at
-- revision 5; after going up again, counting from 0 would reach 5 again for a different
-- game state, and that node would trust its stale copy. So existing games start at the
-- clock in microseconds, above any count they could have reached before (a fresh database
-- has no games, and new games count from 0: their ids were never cached).
UPDATE games SET revision = (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT;

CREATE FUNCTION turnpost_next_revision() RETURNS trigger AS $$
BEGIN
    NEW.revision := OLD.revision + 1;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_revision
    BEFORE UPDATE ON games
    FOR EACH ROW EXECUTE FUNCTION turnpost_next_revision();

-- A seat taken, given up, handed to the computer or muted. Clocks are left out: a game
-- with a time control is never kept (its clocks run with the time anyway), and a move
-- under a clock would otherwise write its game row again.
CREATE FUNCTION turnpost_touch_seat_game() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE games SET revision = revision + 1 WHERE id = OLD.game_id;
    ELSE
        UPDATE games SET revision = revision + 1 WHERE id = NEW.game_id;
        IF TG_OP = 'UPDATE' THEN
            IF OLD.game_id <> NEW.game_id THEN
                UPDATE games SET revision = revision + 1 WHERE id = OLD.game_id;
            END IF;
        END IF;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_seats_revision
    AFTER INSERT OR DELETE OR UPDATE OF game_id, seat, account_id, muted, bot ON game_seats
    FOR EACH ROW EXECUTE FUNCTION turnpost_touch_seat_game();

-- A player's details as game_seats_json shows them, or their vacations: every game they
-- sit in. (One function per table: PL/pgSQL resolves NEW.id or NEW.account_id only for
-- the table that has it.)
CREATE FUNCTION turnpost_touch_games_of(p_account BIGINT) RETURNS VOID AS $$
    UPDATE games SET revision = revision + 1
    WHERE id IN (SELECT game_id FROM game_seats WHERE account_id = p_account);
$$ LANGUAGE sql;

CREATE FUNCTION turnpost_touch_account_games() RETURNS trigger AS $$
BEGIN
    PERFORM turnpost_touch_games_of(NEW.id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION turnpost_touch_vacation_games() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM turnpost_touch_games_of(OLD.account_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM turnpost_touch_games_of(NEW.account_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER accounts_revision
    AFTER UPDATE OF name, email, email_notifications, daily_digest, email_verified_at,
        email_bouncing_at ON accounts
    FOR EACH ROW
    WHEN (OLD.name IS DISTINCT FROM NEW.name
          OR OLD.email IS DISTINCT FROM NEW.email
          OR OLD.email_notifications IS DISTINCT FROM NEW.email_notifications
          OR OLD.daily_digest IS DISTINCT FROM NEW.daily_digest
          OR (OLD.email_verified_at IS NULL) <> (NEW.email_verified_at IS NULL)
          OR (OLD.email_bouncing_at IS NULL) <> (NEW.email_bouncing_at IS NULL))
    EXECUTE FUNCTION turnpost_touch_account_games();

CREATE TRIGGER vacations_revision
    AFTER INSERT OR UPDATE OR DELETE ON vacations
    FOR EACH ROW EXECUTE FUNCTION turnpost_touch_vacation_games();

-- When the seats' details as game_seats_json gives them at `at` next change with the
-- time alone (a vacation starting or ending), or NULL: a kept copy is good until then.
CREATE FUNCTION game_seats_settled_until(game BIGINT, at TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE AS $$
    SELECT min(CASE WHEN v.starts_at > at THEN v.starts_at ELSE v.ends_at END)
    FROM game_seats s JOIN vacations v ON v.account_id = s.account_id
    WHERE s.game_id = game AND v.ends_at > at
$$;

-- NOTIFY serialises commits: a transaction that notified holds a database-wide lock from
-- just before its commit until after it, WAL flush included, so concurrent moves committed
-- one at a time (the bench's bare append ran at about 2,400 transactions a second with
-- the announcement trigger and 3,800 without it). A move written without the row lock
-- (record_move with p_expected: one statement, its own transaction) is now announced by
-- the server right after its commit, with turnpost_announce, whose transaction writes
-- nothing else and does not wait for its flush, so it holds that lock only briefly. Every
-- other change of a game is still announced by the trigger.

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

-- The check without the row lock compares the revision, not the version: a forfeit or a
-- takeback request changes the game without a new version.
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

-- The announcement of a change already committed (see above): it waits for no flush, as it
-- wrote nothing that could be lost; a crash before the flush loses only this live event.
CREATE FUNCTION turnpost_announce(p_payload TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_notify('turnpost_events', p_payload);
    RETURN TRUE;
END
$$;


-- The pending turn email of a seat, which every move updates (owe_turn_email): with only
-- the index of all of a seat's email, the planner took the index of everything pending and
-- filtered hundreds of rows per move.
CREATE INDEX outbox_turn_pending_idx ON outbox (game_id, seat)
    WHERE kind = 'turn' AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL;
