DROP TABLE outbox;
DROP TRIGGER game_actions_append_only ON game_actions;
DROP TABLE game_actions;
DROP FUNCTION turnpost_refuse_change();
DROP TABLE game_seats;
DROP TABLE games;
DROP TABLE accounts;
