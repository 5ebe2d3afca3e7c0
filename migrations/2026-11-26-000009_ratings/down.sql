-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM ratings) OR EXISTS (SELECT 1 FROM rating_history) OR EXISTS (SELECT 1 FROM games WHERE NOT rated) THEN
        RAISE EXCEPTION 'migration 2026-11-26-000009_ratings cannot be reverted while data it would destroy exists: ratings, rating history or unrated games exist, and this down drops them';
    END IF;
END
$$;

DROP TABLE rating_history;
DROP TABLE ratings;
ALTER TABLE games DROP COLUMN rated;
