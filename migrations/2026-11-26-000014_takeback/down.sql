ALTER TABLE games DROP COLUMN takeback;
DROP INDEX game_actions_takebacks;
ALTER TABLE game_actions DROP COLUMN takeback_to;
