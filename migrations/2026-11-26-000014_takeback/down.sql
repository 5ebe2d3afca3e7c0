-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM game_actions WHERE takeback_to IS NOT NULL) OR EXISTS (SELECT 1 FROM games WHERE takeback IS NOT NULL) THEN
        RAISE EXCEPTION 'migration 2026-11-26-000014_takeback cannot be reverted while data it would destroy exists: games hold takebacks (game_actions.takeback_to) or pending takeback requests, and this down drops them: replay would no longer skip the moves taken back, and turnpost verify would fail for those games';
    END IF;
END
$$;

ALTER TABLE games DROP COLUMN takeback;
DROP INDEX game_actions_takebacks;
ALTER TABLE game_actions DROP COLUMN takeback_to;
