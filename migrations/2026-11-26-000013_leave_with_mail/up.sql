-- A game nobody is left in is deleted (the last player left before it started). Its
-- emails stay on record without it: an invitation already sent must not keep the game
-- from being deleted (that failed with a foreign-key error, a 500).
ALTER TABLE outbox DROP CONSTRAINT outbox_game_id_fkey;
ALTER TABLE outbox ADD CONSTRAINT outbox_game_id_fkey
    FOREIGN KEY (game_id) REFERENCES games (id) ON DELETE SET NULL;
