-- Each webhook has a circuit breaker of its own, so that one account's failing URL pauses
-- no other webhook at the same host and port. A receiver (host and port) keeps its
-- politeness: one delivery at a time for webhooks whose last delivery went through, and
-- beside it one at a time for webhooks retrying after a failure, so that retries never
-- hold up another webhook's delivery. Each lane names the delivery holding it, so that
-- settling one never frees the other.
ALTER TABLE webhooks
    -- Deliveries of this webhook that failed in a row; the next success resets it.
    ADD COLUMN failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    -- Nothing is posted to this webhook before then (its breaker is open).
    ADD COLUMN paused_until TIMESTAMPTZ,
    -- When a delivery of this webhook was last claimed: accounts take turns, the one
    -- served longest ago first.
    ADD COLUMN served_at TIMESTAMPTZ;

-- The receiver's own failures and paused_until stay for nodes of an older version during
-- an upgrade; this version neither reads nor writes them.
ALTER TABLE webhook_receivers
    ADD COLUMN busy_with BIGINT,
    ADD COLUMN retry_busy_until TIMESTAMPTZ,
    ADD COLUMN retry_busy_with BIGINT;

