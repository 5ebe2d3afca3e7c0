DROP TRIGGER games_announce ON games;
DROP FUNCTION turnpost_announce_game();
