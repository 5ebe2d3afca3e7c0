-- Game emails are stored as events (game, seat, kind, version) and rendered by the outbox
-- worker when they are sent, from the game as it is then and from that seat's view: moves
-- never pay for rendering, and an email that is due after its turn has passed is dropped
-- instead of sent. Other mail (answers to replies, digests, address checks) is stored
-- rendered, as before (kind 'answer', 'digest', 'verify' or NULL for older rows).
ALTER TABLE outbox ADD COLUMN kind TEXT;
ALTER TABLE outbox ADD COLUMN seat INTEGER;
-- For a turn email: the version its turn began at; once sent, the version it showed.
ALTER TABLE outbox ADD COLUMN version BIGINT;
-- What the event needs besides (reminder stage and time left, who nudged).
ALTER TABLE outbox ADD COLUMN detail JSONB;
-- Chosen at the first attempt and reused by retries, so a receiver recognises a resend;
-- unique, so only one message can be a thread's root, and a bounce finds its message.
ALTER TABLE outbox ADD COLUMN message_id TEXT;
-- An event that needed no email after all (the seat acted, the turn passed, mail to the
-- address stopped), with why.
ALTER TABLE outbox ADD COLUMN dropped_at TIMESTAMPTZ;
ALTER TABLE outbox ADD COLUMN drop_reason TEXT;
ALTER TABLE outbox ALTER COLUMN subject SET DEFAULT '';
ALTER TABLE outbox ALTER COLUMN body_text SET DEFAULT '';
ALTER TABLE outbox ALTER COLUMN body_html SET DEFAULT '';
CREATE UNIQUE INDEX outbox_message_id_idx ON outbox (message_id);
CREATE INDEX outbox_game_seat_idx ON outbox (game_id, seat) WHERE kind IS NOT NULL;
-- The senders claim in (next_attempt_at, id) order: with both in the index a claim reads
-- its row at the front instead of sorting every due row (a backlog of thousands made each
-- claim a sort of thousands).
DROP INDEX outbox_pending_idx;
CREATE INDEX outbox_pending_idx ON outbox (next_attempt_at, id)
    WHERE sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL;

-- Address checks: a new account confirms its address by a signed link before game email
-- goes to it. Accounts from before this migration have been receiving mail all along.
ALTER TABLE accounts ADD COLUMN email_verified_at TIMESTAMPTZ;
UPDATE accounts SET email_verified_at = created_at;
-- A delivery-status notification reported the address as failing: nothing is sent to it
-- until the address is confirmed again.
ALTER TABLE accounts ADD COLUMN email_bouncing_at TIMESTAMPTZ;
ALTER TABLE accounts ADD COLUMN email_bounce_status TEXT;

-- A player's `mute` reply: no more email about this one game.
ALTER TABLE game_seats ADD COLUMN muted BOOLEAN NOT NULL DEFAULT FALSE;
