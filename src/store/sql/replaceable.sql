-- Every function and trigger of Turnpost's schema, as they are now. Applied after the
-- migrations, under the migration lock, whenever this file's SHA-256 differs from the one
-- recorded in turnpost_replaceable_schema (see src/store/replaceable.rs): edit a function
-- here, not in a new migration. Migrations keep tables and data; the older migrations
-- still create the versions of their time, so that each one runs on the schema it knew.
--
-- Functions are dropped first (CASCADE takes their triggers with them) and created again,
-- so a changed signature leaves no stale overload. webhook_receiver_of stays in its
-- migration: the stored column webhooks.receiver is computed by it.
-- Dropping a function with its triggers is expected here: no notice for each.
SET LOCAL client_min_messages = warning;

DO $$
DECLARE
    replaceable_names TEXT[] := ARRAY['turnpost_refuse_change', 'turnpost_announce_game',
        'game_seats_json', 'owe_turn_email', 'owe_webhooks', 'record_move',
        'turnpost_next_revision', 'turnpost_touch_seat_game', 'turnpost_touch_games_of',
        'turnpost_touch_account_games', 'turnpost_touch_vacation_games',
        'game_seats_settled_until', 'turnpost_announce', 'webhook_receiver_row',
        'turnpost_store_event'];
    f REGPROCEDURE;
BEGIN
    FOR f IN
        SELECT p.oid::REGPROCEDURE FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proname = ANY (replaceable_names)
    LOOP
        EXECUTE format('DROP FUNCTION %s CASCADE', f);
    END LOOP;
END
$$;

-- game_actions is a log: nothing rewrites or deletes an entry.
CREATE OR REPLACE FUNCTION turnpost_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'game_actions is append-only';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_actions_append_only
    BEFORE UPDATE OR DELETE ON game_actions
    FOR EACH ROW EXECUTE FUNCTION turnpost_refuse_change();

-- The seats of a game with their players' details and any vacation under way at `at`, as
-- one JSON array ordered by seat. Every move, resignation, nudge and read starts with it.
-- A PL/pgSQL function keeps its plan for the session; the same query sent as text was
-- parsed and planned anew each time, which was most of PostgreSQL's work per move.
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
            'bot', s.bot,
            'vacation_until', (
                SELECT v.ends_at FROM vacations v
                WHERE v.account_id = s.account_id AND v.starts_at <= at AND v.ends_at > at
                ORDER BY v.ends_at DESC LIMIT 1)
        ) ORDER BY s.seat)
        FROM game_seats s JOIN accounts a ON a.id = s.account_id
        WHERE s.game_id = game), '[]'::json);
END
$$;

-- A turn email owed to a seat, due after the grace period: a pending one of the same game
-- and seat (not claimed by a sender right now) takes the new turn and is due later;
-- without one, a new row is written. A claimed row is left alone (the worker drops it if
-- the seat has acted since). A key already present means this turn is owed already.
-- Runs on every move: as a function its plans are kept for the session.
CREATE OR REPLACE FUNCTION owe_turn_email(
    p_version BIGINT, p_key TEXT, p_grace DOUBLE PRECISION, p_game BIGINT, p_seat INT,
    p_account BIGINT, p_address TEXT
) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    -- A pending row of the same game and seat, not claimed by a sender right now, takes
    -- the newer turn (turn events are written under the game row lock, so versions only
    -- grow). A claimed row is left alone: the worker drops it if the seat has acted since.
    UPDATE outbox SET version = p_version,
        due_at = now() + make_interval(secs => p_grace)
    WHERE kind = 'turn' AND game_id = p_game AND seat = p_seat
      AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL
      AND (claimed_until IS NULL OR claimed_until <= now());
    IF FOUND THEN
        RETURN TRUE;
    END IF;
    -- A key already present means this turn is owed already.
    INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version,
        next_attempt_at, due_at)
    VALUES (p_key, p_account, p_game, p_address, 'turn', p_seat, p_version,
        now() + make_interval(secs => p_grace), now() + make_interval(secs => p_grace))
    ON CONFLICT (dedupe_key) DO NOTHING;
    RETURN FOUND;
END
$$;

-- The deliveries a change of a game owes: one row per (webhook, seat, event) for the
-- accounts of the given seats whose webhooks take the event. One statement per change,
-- planned once per session (like owe_turn_email); a key already present is skipped.
CREATE OR REPLACE FUNCTION owe_webhooks(
    p_game BIGINT, p_version BIGINT, p_game_type TEXT,
    p_seats INT[], p_accounts BIGINT[], p_events TEXT[]
) RETURNS INTEGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n INTEGER;
BEGIN
    INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version,
        detail)
    SELECT 'webhook:' || w.id || ':' || o.event || ':' || p_game || ':' || p_version || ':'
               || o.seat,
           w.account_id, p_game, w.url, 'webhook', o.seat, p_version,
           jsonb_build_object('webhook', w.id, 'event', o.event, 'game_type', p_game_type)
    FROM unnest(p_seats, p_accounts, p_events) AS o (seat, account, event)
    JOIN webhooks w ON w.account_id = o.account AND o.event = ANY (w.events)
    ON CONFLICT (dedupe_key) DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

-- A move's writes in one statement: the new snapshot and status (only if the game is
-- still at the version the move was worked out on), its log entries, the webhooks and
-- the turn emails it owes. Under the game row lock it is one round trip instead of four;
-- without a lock (a move that only needs the game to be where it was read, see
-- `Domain::submit_action`) it is the whole write, atomic as any single statement, and
-- NULL tells the server another change came first and nothing was written.
--
-- p_entries: [{"seat", "action", "public_action" (or null), "seen_by": [..],
-- "description"}], in order, numbered from p_base + 1. p_expected NULL writes without
-- the check (the caller holds the row lock, and may have written an entry of its own at
-- p_base, as a takeback does). The turn arrays are parallel:
-- seat, account, address and dedupe key of each turn email owed.
-- The check without the row lock compares the revision, not the version: a forfeit or a
-- takeback request changes the game without a new version. p_deciding: see games.deciding.
CREATE OR REPLACE FUNCTION record_move(
    p_game BIGINT, p_base BIGINT, p_expected BIGINT, p_entries JSONB, p_snapshot TEXT, p_status TEXT,
    p_to_act INT[], p_deciding INT[], p_result JSONB, p_game_type TEXT,
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
        to_act = p_to_act, deciding = p_deciding, result = p_result, updated_at = now()
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

-- A game's revision counts every change to what a read of the game returns: its row, its
-- seats, and its players' details and vacations (see domain::game_cache). Triggers bump
-- it, so no code path that changes a game can forget to.
CREATE OR REPLACE FUNCTION turnpost_next_revision() RETURNS trigger AS $$
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
CREATE OR REPLACE FUNCTION turnpost_touch_seat_game() RETURNS trigger AS $$
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
CREATE OR REPLACE FUNCTION turnpost_touch_games_of(p_account BIGINT) RETURNS VOID AS $$
    UPDATE games SET revision = revision + 1
    WHERE id IN (SELECT game_id FROM game_seats WHERE account_id = p_account);
$$ LANGUAGE sql;

CREATE OR REPLACE FUNCTION turnpost_touch_account_games() RETURNS trigger AS $$
BEGIN
    PERFORM turnpost_touch_games_of(NEW.id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION turnpost_touch_vacation_games() RETURNS trigger AS $$
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
CREATE OR REPLACE FUNCTION game_seats_settled_until(game BIGINT, at TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE AS $$
    SELECT min(CASE WHEN v.starts_at > at THEN v.starts_at ELSE v.ends_at END)
    FROM game_seats s JOIN vacations v ON v.account_id = s.account_id
    WHERE s.game_id = game AND v.ends_at > at
$$;

-- Stores one announcement and notifies it with its id. Ids must be handed out in commit
-- order: a client that saw id 11 and reconnects is sent ids after 11, so an id 10 that
-- committed after 11 would be lost (and live it would arrive after 11). A transaction-level
-- advisory lock taken just before the id is drawn, and held until commit, makes id order
-- commit order; callers take it as late as they can (the trigger is deferred to commit, the
-- server's announcement is a transaction of its own), so it serialises little more than
-- NOTIFY's own commit lock already does.
CREATE OR REPLACE FUNCTION turnpost_store_event(p_payload JSONB) RETURNS BIGINT
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

-- Every change of a game row is announced (see turnpost_store_event), with the accounts
-- seated and those that decide, and whether the lobby changed.
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
-- evaluated at the update, so a move the server announces itself is skipped.
CREATE CONSTRAINT TRIGGER games_announce
    AFTER UPDATE ON games
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (current_setting('turnpost.announce', true) IS DISTINCT FROM 'server')
    EXECUTE FUNCTION turnpost_announce_game();

-- The announcement of a change already committed, sent by the server after a move written
-- without the row lock: it waits for no flush, as it wrote nothing that could be lost.
CREATE OR REPLACE FUNCTION turnpost_announce(p_payload TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM turnpost_store_event(p_payload::jsonb);
    RETURN TRUE;
END
$$;

-- A webhook's receiver gets its row of breaker state with the first webhook that names it.
CREATE OR REPLACE FUNCTION webhook_receiver_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_receivers (receiver) VALUES (NEW.receiver) ON CONFLICT DO NOTHING;
    RETURN NEW;
END
$$;

CREATE TRIGGER webhooks_receiver_row AFTER INSERT ON webhooks
    FOR EACH ROW EXECUTE FUNCTION webhook_receiver_row();
