-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE email_failing_at IS NOT NULL) THEN
        RAISE EXCEPTION 'migration 2026-11-27-000020_outbox_lanes cannot be reverted while data it would destroy exists: accounts have an address our mail could not reach (email_failing_at), and this down drops it';
    END IF;
END
$$;

ALTER TABLE accounts DROP COLUMN email_failing_at;
DROP INDEX outbox_webhook_ping_idx;
DROP INDEX outbox_webhook_pending_idx;
DROP TRIGGER webhooks_receiver_row ON webhooks;
DROP FUNCTION webhook_receiver_row();
DROP TABLE webhook_receivers;
ALTER TABLE webhooks DROP COLUMN receiver;
DROP FUNCTION webhook_receiver_of(TEXT);
