-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM webhooks) OR EXISTS (SELECT 1 FROM calendar_feeds) THEN
        RAISE EXCEPTION 'migration 2026-11-26-000010_webhooks cannot be reverted while data it would destroy exists: webhooks or calendar feeds exist, and this down drops them (their secrets cannot be made again)';
    END IF;
END
$$;

DROP TABLE calendar_feeds;
DROP FUNCTION owe_webhooks(BIGINT, BIGINT, TEXT, INT[], BIGINT[], TEXT[]);
DROP INDEX outbox_webhook_idx;
UPDATE outbox SET dropped_at = now(), drop_reason = 'webhooks_removed'
    WHERE kind = 'webhook' AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL;
DROP TABLE webhooks;
