-- Webhooks get their own senders (an email never waits behind a receiver that does not
-- answer), and each receiver (a URL's host and port) is sent one delivery at a time and
-- paused after failures in a row: a circuit breaker, so that a dead receiver takes one
-- sender's time now and then, not every sender's all the time.
CREATE FUNCTION webhook_receiver_of(url TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN coalesce(lower(substring(url FROM '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)')), '');

ALTER TABLE webhooks ADD COLUMN receiver TEXT NOT NULL
    GENERATED ALWAYS AS (webhook_receiver_of(url)) STORED;

CREATE TABLE webhook_receivers (
    receiver TEXT PRIMARY KEY,
    -- A sender is posting to it until then (its claim's lease): one at a time.
    busy_until TIMESTAMPTZ,
    -- Deliveries that failed in a row; the next success resets it.
    failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    -- Nothing is posted to it before then (the breaker is open).
    paused_until TIMESTAMPTZ
);

INSERT INTO webhook_receivers (receiver)
    SELECT DISTINCT receiver FROM webhooks ON CONFLICT DO NOTHING;

CREATE FUNCTION webhook_receiver_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_receivers (receiver) VALUES (NEW.receiver) ON CONFLICT DO NOTHING;
    RETURN NEW;
END
$$;

CREATE TRIGGER webhooks_receiver_row AFTER INSERT ON webhooks
    FOR EACH ROW EXECUTE FUNCTION webhook_receiver_row();

-- Pending webhook deliveries in claim order, for the webhook senders.
CREATE INDEX outbox_webhook_pending_idx ON outbox (next_attempt_at, id)
    WHERE kind = 'webhook' AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL;

-- Pings a webhook's owner asked for recently, for their limit.
CREATE INDEX outbox_webhook_ping_idx ON outbox (((detail->>'webhook')::BIGINT), created_at)
    WHERE kind = 'webhook' AND detail->>'event' = 'ping';

-- An address our mail could not reach after the last attempt (not a bounce report: the
-- sending itself failed); shown as the account's email status until a later email to
-- it goes out.
ALTER TABLE accounts ADD COLUMN email_failing_at TIMESTAMPTZ;
