-- Bumped with every password reset link mailed, and signed into the link: asking again
-- makes every earlier link stop working.
ALTER TABLE accounts ADD COLUMN reset_generation integer NOT NULL DEFAULT 0;
