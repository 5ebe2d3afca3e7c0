ALTER TABLE games DROP COLUMN computer_paused_until;
DROP TABLE computer_moves;
