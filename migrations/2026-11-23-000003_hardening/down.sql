-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE token_generation <> 0) THEN
        RAISE EXCEPTION 'migration 2026-11-23-000003_hardening cannot be reverted while data it would destroy exists: accounts have signed out everywhere or changed their password (token_generation), and without it their old tokens would be valid again';
    END IF;
END
$$;

ALTER TABLE outbox DROP COLUMN claimed_until;
ALTER TABLE accounts DROP COLUMN token_generation;
