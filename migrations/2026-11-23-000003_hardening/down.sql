ALTER TABLE outbox DROP COLUMN claimed_until;
ALTER TABLE accounts DROP COLUMN token_generation;
