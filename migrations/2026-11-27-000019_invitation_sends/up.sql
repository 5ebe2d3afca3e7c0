-- Every invitation email sent, kept after its game is gone (leaving an open game deletes
-- it with its invitations): the limits on invitations count these rows. Per inviter and
-- per address a day, and no new invitation from an inviter to an address that let the
-- last one go unanswered.
CREATE TABLE invitation_sends (
    id BIGSERIAL PRIMARY KEY,
    inviter_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email_lower TEXT NOT NULL,
    -- The invitation while it exists: its status says whether the address answered.
    invitation_id BIGINT REFERENCES invitations (id) ON DELETE SET NULL,
    sent_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invitation_sends_by_address ON invitation_sends (email_lower, sent_at);
CREATE INDEX invitation_sends_by_inviter ON invitation_sends (inviter_id, sent_at);
