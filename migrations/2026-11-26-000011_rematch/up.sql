-- A finished game's rematch: the same players, seats rotated, same options. Unique, so
-- asking twice (two players at once, a resent email) gives one new game.
ALTER TABLE games ADD COLUMN rematch_id BIGINT UNIQUE REFERENCES games (id) ON DELETE SET NULL;
