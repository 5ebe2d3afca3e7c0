-- Takeback with consent. The log is never rewritten: a takeback is an entry of its own,
-- naming the version the game returned to (`takeback_to`); the entries after that version
-- stay in the log, and replay skips them (see domain/replay.rs).
ALTER TABLE game_actions ADD COLUMN takeback_to BIGINT CHECK (takeback_to >= 0 AND takeback_to < seq);
CREATE INDEX game_actions_takebacks ON game_actions (game_id, seq) WHERE takeback_to IS NOT NULL;

-- A player's pending request to take back their last action, and who agreed so far. It is
-- valid only while the game is at the version it was asked at (`at_version`): any move
-- lets it lapse, so nothing has to clear it.
ALTER TABLE games ADD COLUMN takeback JSONB;
