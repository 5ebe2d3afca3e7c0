-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM invitation_sends) THEN
        RAISE EXCEPTION 'migration 2026-11-27-000019_invitation_sends cannot be reverted while data it would destroy exists: invitation emails were sent, and this down drops their record, which the invitation limits count';
    END IF;
END
$$;

DROP TABLE invitation_sends;
