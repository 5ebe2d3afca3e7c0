-- A deleted account keeps its row, emptied, so that its finished games still name their
-- seats and replay; `deleted_at` says it is gone.
ALTER TABLE accounts ADD COLUMN deleted_at TIMESTAMPTZ;
