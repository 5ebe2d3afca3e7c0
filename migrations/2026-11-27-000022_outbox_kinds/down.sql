ALTER TABLE outbox DROP CONSTRAINT outbox_kind_known;
