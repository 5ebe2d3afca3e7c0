ALTER TABLE webhook_receivers
    DROP COLUMN retry_busy_with,
    DROP COLUMN retry_busy_until,
    DROP COLUMN busy_with;

ALTER TABLE webhooks
    DROP COLUMN served_at,
    DROP COLUMN paused_until,
    DROP COLUMN failures;
