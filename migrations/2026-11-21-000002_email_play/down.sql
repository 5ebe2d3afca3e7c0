-- Refuses while data this down would destroy exists: going up again could not
-- bring it back. Nothing below runs, and the migration stays applied.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM vacations) OR EXISTS (SELECT 1 FROM game_timeouts)
       OR EXISTS (SELECT 1 FROM inbound_messages)
       OR EXISTS (SELECT 1 FROM games WHERE time_control IS NOT NULL OR forfeited <> '{}'
                  OR timeout_policy <> 'forfeit' OR last_nudge_at IS NOT NULL)
       OR EXISTS (SELECT 1 FROM game_seats WHERE clock_ms IS NOT NULL OR clock_since IS NOT NULL
                  OR reminders_sent <> 0)
       OR EXISTS (SELECT 1 FROM accounts WHERE NOT reminders OR time_zone <> 'UTC'
                  OR quiet_from IS NOT NULL OR quiet_until IS NOT NULL OR daily_digest
                  OR digest_hour <> 8 OR last_digest_on IS NOT NULL)
       OR EXISTS (SELECT 1 FROM outbox WHERE reply_to IS NOT NULL OR in_reply_to IS NOT NULL) THEN
        RAISE EXCEPTION 'migration 2026-11-21-000002_email_play cannot be reverted while data it would destroy exists: games with clocks, forfeits or nudges, vacations, timeouts, inbound emails, reply addresses or account mail settings exist, and this down drops them';
    END IF;
END
$$;

DROP TABLE vacations;
ALTER TABLE accounts DROP COLUMN last_digest_on, DROP COLUMN digest_hour, DROP COLUMN daily_digest;
ALTER TABLE accounts DROP COLUMN quiet_until, DROP COLUMN quiet_from, DROP COLUMN time_zone, DROP COLUMN reminders;
DROP TABLE game_timeouts;
ALTER TABLE game_seats DROP COLUMN reminders_sent, DROP COLUMN clock_since, DROP COLUMN clock_ms;
ALTER TABLE games DROP COLUMN last_nudge_at, DROP COLUMN timeout_policy, DROP COLUMN time_control, DROP COLUMN forfeited;
ALTER TABLE outbox DROP COLUMN in_reply_to;
ALTER TABLE outbox DROP COLUMN reply_to;
DROP TABLE inbound_messages;
