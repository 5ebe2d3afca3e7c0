ALTER TABLE games RESET (fillfactor);
DROP INDEX games_status_idx;
CREATE INDEX games_status_idx ON games (status, updated_at DESC);
