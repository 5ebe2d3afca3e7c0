-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM games WHERE rematch_id IS NOT NULL) THEN
        RAISE EXCEPTION 'migration 2026-11-26-000011_rematch cannot be reverted while data it would destroy exists: games have rematches, and this down drops the link (a second request would start a second rematch)';
    END IF;
END
$$;

ALTER TABLE games DROP COLUMN rematch_id;
