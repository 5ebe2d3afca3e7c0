-- The event buffer is pruned by age, and its rows come in time order: a BRIN index finds
-- the old ones as well as the B-tree did, and costs the WAL nothing on most inserts, where
-- the B-tree wrote an index entry for every announced move and, the first time after each
-- checkpoint, its whole leaf page.
DROP INDEX game_events_created_at_idx;
CREATE INDEX game_events_created_at_idx ON game_events USING brin (created_at);
