ALTER TABLE accounts DROP COLUMN reset_generation;
