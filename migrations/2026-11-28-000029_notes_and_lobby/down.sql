-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM game_notes) OR EXISTS (SELECT 1 FROM game_requirements) THEN
        RAISE EXCEPTION 'migration 2026-11-28-000029_notes_and_lobby cannot be reverted while data it would destroy exists: private game notes or join requirements of games exist, and this down drops them (a game would be open to anyone)';
    END IF;
END
$$;

DROP TABLE game_requirements;
DROP TABLE game_notes;
