-- An outbox row's kind is one of the jobs the senders know (store::kinds::OutboxKind), or
-- none for mail stored rendered before kinds existed. A row with another word could never
-- be sent, so it is refused where it is written.
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_known CHECK (
    kind IS NULL OR kind IN ('turn', 'reminder', 'nudge', 'over', 'takeback', 'answer',
        'digest', 'verify', 'invite', 'sign_up', 'sign_up_taken', 'webhook')
);
