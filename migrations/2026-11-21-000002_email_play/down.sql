DROP TABLE vacations;
ALTER TABLE accounts DROP COLUMN last_digest_on, DROP COLUMN digest_hour, DROP COLUMN daily_digest;
ALTER TABLE accounts DROP COLUMN quiet_until, DROP COLUMN quiet_from, DROP COLUMN time_zone, DROP COLUMN reminders;
DROP TABLE game_timeouts;
ALTER TABLE game_seats DROP COLUMN reminders_sent, DROP COLUMN clock_since, DROP COLUMN clock_ms;
ALTER TABLE games DROP COLUMN last_nudge_at, DROP COLUMN timeout_policy, DROP COLUMN time_control, DROP COLUMN forfeited;
ALTER TABLE outbox DROP COLUMN in_reply_to;
ALTER TABLE outbox DROP COLUMN reply_to;
DROP TABLE inbound_messages;
