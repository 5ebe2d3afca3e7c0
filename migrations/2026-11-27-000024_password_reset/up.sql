-- Password reset emails are an outbox kind of their own (store::kinds::OutboxKind): mail
-- about the account, sent even to an address reported bouncing (its owner asks for it now).
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_known;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_known CHECK (
    kind IS NULL OR kind IN ('turn', 'reminder', 'nudge', 'over', 'takeback', 'answer',
        'digest', 'verify', 'invite', 'sign_up', 'sign_up_taken', 'password_reset', 'webhook')
);
