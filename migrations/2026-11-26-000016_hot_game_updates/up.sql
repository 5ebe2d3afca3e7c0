-- Every move rewrote the game row's entry in games_status_idx, because the index held
-- updated_at: no move could be a heap-only (HOT) update, and each one added an index
-- entry for vacuum to clean up. The listings that sort by updated_at filter by status or
-- by the caller's games first and sort what is left; the index on status alone serves
-- the filter. Room left in each page lets the new row version stay beside the old.
DROP INDEX games_status_idx;
CREATE INDEX games_status_idx ON games (status);
ALTER TABLE games SET (fillfactor = 70);
