-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM chat_messages) OR EXISTS (SELECT 1 FROM chat_mutes)
       OR EXISTS (SELECT 1 FROM webhooks WHERE 'chat_message' = ANY (events)) THEN
        RAISE EXCEPTION 'migration 2026-11-28-000028_chat cannot be reverted while data it would destroy exists: chat messages (with their reports and read marks), chat mutes, or webhooks taking chat_message exist, and this down drops them';
    END IF;
END
$$;

ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check
    CHECK (cardinality(events) > 0
           AND events <@ ARRAY['your_turn', 'offer', 'game_finished']::TEXT[]);
DROP TABLE chat_reads;
DROP TABLE chat_reports;
DROP TABLE chat_mutes;
DROP TABLE chat_messages;
