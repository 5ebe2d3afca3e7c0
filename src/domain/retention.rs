//! Retention: the outbox gains a row per email and webhook delivery, and
//! `inbound_messages` one per reply; nothing else ever removes them. Past the retention
//! (`outbox_retention_days`), the sweep deletes what was sent or dropped, and replies
//! processed, keeping what is still needed:
//!
//! - rows not yet settled (pending or being retried) and those given up (`failed_at`: the
//!   operator lists and requeues them), whatever their age;
//! - the first email of each game thread (its Message-ID is the thread's root, unique in
//!   the outbox: were it gone, the next email would take the same Message-ID again, and
//!   mail clients drop a message whose ID they hold), emptied of subject and body.
//!
//! Duplicate detection needs no more: a reply's Message-ID is remembered for the
//! retention (an MTA retries for days, not weeks), and queued email is keyed by what it is
//! about (a game version, a digest's date, a chat message), which never comes back.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Timestamptz};

/// Rows deleted per statement, so that a first prune of a large outbox does not hold
/// locks for long; the next sweep goes on.
const BATCH: i64 = 10_000;

/// Prunes what settled before `cutoff`; returns how many rows went.
pub fn prune(conn: &mut PgConnection, cutoff: DateTime<Utc>) -> QueryResult<usize> {
    let outbox = diesel::sql_query(
        "DELETE FROM outbox WHERE id IN ( \
           SELECT id FROM outbox \
           WHERE failed_at IS NULL AND COALESCE(sent_at, dropped_at) < $1 \
             AND (message_id IS NULL OR message_id NOT LIKE '<game-%') \
           LIMIT $2)",
    )
    .bind::<Timestamptz, _>(cutoff)
    .bind::<BigInt, _>(BATCH)
    .execute(conn)?;
    // The thread roots stay, without what they said.
    diesel::sql_query(
        "UPDATE outbox SET subject = '', body_text = '', body_html = '', detail = NULL \
         WHERE message_id LIKE '<game-%' AND failed_at IS NULL \
           AND COALESCE(sent_at, dropped_at) < $1 \
           AND (subject <> '' OR body_text <> '' OR body_html <> '' OR detail IS NOT NULL)",
    )
    .bind::<Timestamptz, _>(cutoff)
    .execute(conn)?;
    let replies = diesel::sql_query(
        "DELETE FROM inbound_messages WHERE message_id IN ( \
           SELECT message_id FROM inbound_messages \
           WHERE received_at < $1 AND outcome <> 'processing' LIMIT $2)",
    )
    .bind::<Timestamptz, _>(cutoff)
    .bind::<BigInt, _>(BATCH)
    .execute(conn)?;
    Ok(outbox + replies)
}
