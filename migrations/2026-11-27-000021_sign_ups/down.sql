-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM sign_ups) THEN
        RAISE EXCEPTION 'migration 2026-11-27-000021_sign_ups cannot be reverted while data it would destroy exists: sign-ups wait for their address to be confirmed, and this down drops them (their links would stop working)';
    END IF;
END
$$;

DROP TABLE sign_ups;
