-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM games) OR EXISTS (SELECT 1 FROM outbox) THEN
        RAISE EXCEPTION 'migration 2026-11-21-000001_core cannot be reverted while data it would destroy exists: accounts, games or messages exist, and this down drops their tables';
    END IF;
END
$$;

DROP TABLE outbox;
DROP TRIGGER game_actions_append_only ON game_actions;
DROP TABLE game_actions;
DROP FUNCTION turnpost_refuse_change();
DROP TABLE game_seats;
DROP TABLE games;
DROP TABLE accounts;
