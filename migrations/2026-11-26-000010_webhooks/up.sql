-- Webhooks: an account's receivers of signed POSTs about its games (your_turn, offer,
-- game_finished). Each event is an outbox row of kind 'webhook' written in the
-- transaction that changed the game, and delivered (with retries) by the outbox worker.
-- The secret signs the deliveries, so it is kept as issued (shown to the owner once).
CREATE TABLE webhooks (
    id BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url TEXT NOT NULL CHECK (length(url) <= 2048),
    events TEXT[] NOT NULL
        CHECK (cardinality(events) > 0
               AND events <@ ARRAY['your_turn', 'offer', 'game_finished']::TEXT[]),
    secret TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_account_idx ON webhooks (account_id);

-- A webhook's deliveries, newest first (GET /api/v1/me/webhooks/{id}/deliveries). Only
-- webhook rows are in it, and no update of a turn email touches `detail` or `kind`, so
-- those stay in-place (HOT) updates.
CREATE INDEX outbox_webhook_idx ON outbox (((detail->>'webhook')::BIGINT), id)
    WHERE kind = 'webhook';

-- The deliveries a change of a game owes: one row per (webhook, seat, event) for the
-- accounts of the given seats whose webhooks take the event. One statement per change,
-- planned once per session (like owe_turn_email); a key already present is skipped.
CREATE FUNCTION owe_webhooks(
    p_game BIGINT, p_version BIGINT, p_game_type TEXT,
    p_seats INT[], p_accounts BIGINT[], p_events TEXT[]
) RETURNS INTEGER
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n INTEGER;
BEGIN
    INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version,
        detail)
    SELECT 'webhook:' || w.id || ':' || o.event || ':' || p_game || ':' || p_version || ':'
               || o.seat,
           w.account_id, p_game, w.url, 'webhook', o.seat, p_version,
           jsonb_build_object('webhook', w.id, 'event', o.event, 'game_type', p_game_type)
    FROM unnest(p_seats, p_accounts, p_events) AS o (seat, account, event)
    JOIN webhooks w ON w.account_id = o.account AND o.event = ANY (w.events)
    ON CONFLICT (dedupe_key) DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

-- The calendar feed: its URL carries the account and a MAC of this secret under the
-- server's key; a new secret revokes the old URL.
CREATE TABLE calendar_feeds (
    account_id BIGINT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    secret TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
