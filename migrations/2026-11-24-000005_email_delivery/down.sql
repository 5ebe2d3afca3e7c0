-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM outbox WHERE kind IS NOT NULL)
       OR EXISTS (SELECT 1 FROM accounts WHERE email_verified_at IS NULL OR email_bouncing_at IS NOT NULL)
       OR EXISTS (SELECT 1 FROM game_seats WHERE muted) THEN
        RAISE EXCEPTION 'migration 2026-11-24-000005_email_delivery cannot be reverted while data it would destroy exists: outbox events (stored unrendered), unconfirmed or bouncing addresses, or muted seats exist, and this down drops them (going up again would mark every address confirmed)';
    END IF;
END
$$;

ALTER TABLE game_seats DROP COLUMN muted;
ALTER TABLE accounts DROP COLUMN email_bounce_status;
ALTER TABLE accounts DROP COLUMN email_bouncing_at;
ALTER TABLE accounts DROP COLUMN email_verified_at;
DROP INDEX outbox_pending_idx;
CREATE INDEX outbox_pending_idx ON outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
DROP INDEX outbox_game_seat_idx;
DROP INDEX outbox_message_id_idx;
ALTER TABLE outbox ALTER COLUMN body_html DROP DEFAULT;
ALTER TABLE outbox ALTER COLUMN body_text DROP DEFAULT;
ALTER TABLE outbox ALTER COLUMN subject DROP DEFAULT;
ALTER TABLE outbox DROP COLUMN drop_reason;
ALTER TABLE outbox DROP COLUMN dropped_at;
ALTER TABLE outbox DROP COLUMN message_id;
ALTER TABLE outbox DROP COLUMN detail;
ALTER TABLE outbox DROP COLUMN version;
ALTER TABLE outbox DROP COLUMN seat;
ALTER TABLE outbox DROP COLUMN kind;
