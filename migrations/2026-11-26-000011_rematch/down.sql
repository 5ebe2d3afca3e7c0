ALTER TABLE games DROP COLUMN rematch_id;
