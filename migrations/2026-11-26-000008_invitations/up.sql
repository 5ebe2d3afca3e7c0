-- A private game is seen only by its seats and the people invited to it; it is never in
-- the lobby.
ALTER TABLE games ADD COLUMN private BOOLEAN NOT NULL DEFAULT FALSE;

-- Seats kept for people invited by email. A pending invitation that has not expired holds
-- one seat: `join` leaves it free for the invitee. The token mailed to the invitee is kept
-- only as its SHA-256, so the table does not hold working links.
CREATE TABLE invitations (
    id BIGSERIAL PRIMARY KEY,
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    email_lower TEXT NOT NULL,
    token_hash BYTEA NOT NULL UNIQUE,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled')),
    invited_by BIGINT NOT NULL REFERENCES accounts (id),
    -- The account that took the seat.
    account_id BIGINT REFERENCES accounts (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL,
    answered_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX invitations_one_pending_per_address
    ON invitations (game_id, email_lower) WHERE status = 'pending';
CREATE INDEX invitations_by_game ON invitations (game_id);
CREATE INDEX invitations_pending_by_address ON invitations (email_lower) WHERE status = 'pending';

-- The announcement also names the seats the game waits for, so that a watcher's stream
-- (GET /api/v1/games/{id}/events) carries them without reading the game.
CREATE OR REPLACE FUNCTION turnpost_announce_game() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('turnpost_events', json_build_object(
        'game', NEW.id,
        'version', NEW.version,
        'status', NEW.status,
        'to_act', NEW.to_act,
        'accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats WHERE game_id = NEW.id), '[]'::json),
        'to_act_accounts', COALESCE((SELECT json_agg(account_id) FROM game_seats
                                     WHERE game_id = NEW.id AND seat = ANY(NEW.to_act)), '[]'::json)
    )::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
