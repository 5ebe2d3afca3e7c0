ALTER TABLE accounts DROP COLUMN email_failing_at;
DROP INDEX outbox_webhook_ping_idx;
DROP INDEX outbox_webhook_pending_idx;
DROP TRIGGER webhooks_receiver_row ON webhooks;
DROP FUNCTION webhook_receiver_row();
DROP TABLE webhook_receivers;
ALTER TABLE webhooks DROP COLUMN receiver;
DROP FUNCTION webhook_receiver_of(TEXT);
