-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied. Offers not taken
-- are only offers, and go; a seat taken over is the record of who left it (who keeps the
-- loss) and who played it on unrated.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM seat_replacements WHERE replacement_id IS NOT NULL) THEN
        RAISE EXCEPTION 'migration 2026-11-28-000031_replacement_seats cannot be reverted while data it would destroy exists: seats were taken over by replacements (seat_replacements), and this down drops the record of who left them: the leaver would escape the loss and the replacement would be rated';
    END IF;
END
$$;

DROP TABLE seat_replacements;
