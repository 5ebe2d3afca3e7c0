ALTER TABLE outbox DROP CONSTRAINT outbox_game_id_fkey;
ALTER TABLE outbox ADD CONSTRAINT outbox_game_id_fkey
    FOREIGN KEY (game_id) REFERENCES games (id);
