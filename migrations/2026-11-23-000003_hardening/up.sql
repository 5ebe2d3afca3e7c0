-- A password change (or "sign out everywhere") bumps the generation; tokens carry the
-- generation they were issued under and die when it moves on.
ALTER TABLE accounts ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;

-- Outbox delivery in three steps, claim → send → mark: a claimed row is not sent again
-- until its lease runs out, so a crash between send and mark repeats at most that one
-- message, and only after the lease.
ALTER TABLE outbox ADD COLUMN claimed_until TIMESTAMPTZ;
