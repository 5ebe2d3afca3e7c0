-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM access_tokens) OR EXISTS (SELECT 1 FROM revoked_logins) THEN
        RAISE EXCEPTION 'migration 2026-11-27-000026_access_tokens cannot be reverted while data it would destroy exists: access tokens or signed-out logins exist, and this down drops them (a signed-out login would be valid again)';
    END IF;
END
$$;

DROP TABLE revoked_logins;
DROP TABLE access_tokens;
