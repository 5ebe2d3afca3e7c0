DROP TABLE calendar_feeds;
DROP FUNCTION owe_webhooks(BIGINT, BIGINT, TEXT, INT[], BIGINT[], TEXT[]);
DROP INDEX outbox_webhook_idx;
UPDATE outbox SET dropped_at = now(), drop_reason = 'webhooks_removed'
    WHERE kind = 'webhook' AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL;
DROP TABLE webhooks;
