DROP INDEX game_events_created_at_idx;
CREATE INDEX game_events_created_at_idx ON game_events (created_at);
