//! The webhook lane of the outbox: claiming deliveries fairly across receivers (one at a
//! time per receiver, on every node), the per-receiver circuit breaker, and posting a
//! claimed delivery through `notify::webhook`.

use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Result, anyhow};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text, Timestamptz};

use super::worker::{Delivered, Outcome, Worker};
use crate::domain::webhooks::WebhookDelivery;
use crate::store::models::OutboxRow;

/// Failures in a row after which a receiver is paused (the breaker opens).
pub const BREAKER_FAILURES: i32 = 3;
/// The first pause, doubled with each further failure, up to [`BREAKER_MAX_PAUSE_SECS`].
pub const BREAKER_PAUSE_SECS: i64 = 30;
pub const BREAKER_MAX_PAUSE_SECS: i64 = 3600;

/// A sender's place among those working on receivers that failed last time; given back
/// when dropped.
pub(crate) struct FailingSlot<'a>(&'a AtomicUsize);

impl Drop for FailingSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Worker {
    /// Claims a due webhook delivery: one whose receiver answered last time if there is
    /// one, else (while fewer than half of the senders are at it) one whose receiver
    /// failed. A receiver that does not answer thus holds one sender at a time, and only
    /// until its breaker opens.
    pub(crate) fn claim_webhook_fairly<'a>(
        &self,
        conn: &mut PgConnection,
        due: Option<DateTime<Utc>>,
        failing: &'a AtomicUsize,
    ) -> Result<Option<(OutboxRow, Option<FailingSlot<'a>>)>> {
        if let Some(row) = self.claim_webhook(conn, due, false)? {
            return Ok(Some((row, None)));
        }
        let most = (self.senders / 2).max(1);
        if failing.fetch_add(1, Ordering::AcqRel) >= most {
            failing.fetch_sub(1, Ordering::AcqRel);
            return Ok(None);
        }
        let slot = FailingSlot(failing);
        Ok(self
            .claim_webhook(conn, due, true)?
            .map(|row| (row, Some(slot))))
    }

    /// Claims the oldest due webhook delivery whose receiver is neither busy (another
    /// sender is posting to it) nor paused, and marks the receiver busy for the lease, in
    /// one statement committed before anything is posted. The receiver's row is locked
    /// with the delivery's (SKIP LOCKED), so two senders, on this server or another,
    /// never take the same receiver at once. `failed_too`: also receivers whose last
    /// delivery failed.
    pub(crate) fn claim_webhook(
        &self,
        conn: &mut PgConnection,
        due: Option<DateTime<Utc>>,
        failed_too: bool,
    ) -> Result<Option<OutboxRow>> {
        let lease_ms = i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX);
        let row = diesel::sql_query(
            "WITH pick AS ( \
               SELECT o.id, r.receiver FROM outbox o \
               JOIN webhooks w ON w.id = (o.detail->>'webhook')::BIGINT \
               JOIN webhook_receivers r ON r.receiver = w.receiver \
               WHERE o.kind = 'webhook' \
                 AND o.sent_at IS NULL AND o.failed_at IS NULL AND o.dropped_at IS NULL \
                 AND o.next_attempt_at <= COALESCE($1, now()) \
                 AND (o.claimed_until IS NULL OR o.claimed_until <= now()) \
                 AND (r.busy_until IS NULL OR r.busy_until <= now()) \
                 AND (r.paused_until IS NULL OR r.paused_until <= COALESCE($1, now())) \
                 AND ($3 OR r.failures = 0) \
               ORDER BY o.next_attempt_at, o.id \
               FOR UPDATE OF o, r SKIP LOCKED LIMIT 1), \
             busy AS ( \
               UPDATE webhook_receivers SET busy_until = \
                 now() + make_interval(secs => $2::float8 / 1000) \
               FROM pick WHERE webhook_receivers.receiver = pick.receiver) \
             UPDATE outbox SET claimed_until = now() + make_interval(secs => $2::float8 / 1000) \
             FROM pick WHERE outbox.id = pick.id RETURNING outbox.*",
        )
        .bind::<Nullable<Timestamptz>, _>(due)
        .bind::<BigInt, _>(lease_ms)
        .bind::<Bool, _>(failed_too)
        .get_result::<OutboxRow>(conn)
        .optional()?;
        Ok(row)
    }

    /// Frees the row's receiver for the next delivery and keeps its record: a success
    /// closes the breaker, a failure counts, and [`BREAKER_FAILURES`] in a row pause the
    /// receiver (30 s, doubling up to an hour). Its deliveries wait meanwhile, without
    /// using their attempts.
    pub(crate) fn settle_receiver(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
        outcome: Outcome,
    ) -> Result<()> {
        let receiver = &row.to_address;
        match outcome {
            Outcome::Sent => diesel::sql_query(
                "UPDATE webhook_receivers SET busy_until = NULL, failures = 0, \
                   paused_until = NULL WHERE receiver = webhook_receiver_of($1)",
            )
            .bind::<Text, _>(receiver)
            .execute(conn)?,
            Outcome::Dropped => diesel::sql_query(
                "UPDATE webhook_receivers SET busy_until = NULL \
                 WHERE receiver = webhook_receiver_of($1)",
            )
            .bind::<Text, _>(receiver)
            .execute(conn)?,
            Outcome::Failed => diesel::sql_query(
                "UPDATE webhook_receivers SET busy_until = NULL, failures = failures + 1, \
                   paused_until = CASE WHEN failures + 1 >= $2 THEN now() + make_interval( \
                     secs => LEAST($4::float8, $3 * 2 ^ LEAST(failures + 1 - $2, 20))) \
                     ELSE paused_until END \
                 WHERE receiver = webhook_receiver_of($1)",
            )
            .bind::<Text, _>(receiver)
            .bind::<Integer, _>(BREAKER_FAILURES)
            .bind::<diesel::sql_types::Double, _>(BREAKER_PAUSE_SECS as f64)
            .bind::<diesel::sql_types::Double, _>(BREAKER_MAX_PAUSE_SECS as f64)
            .execute(conn)?,
        };
        Ok(())
    }

    /// Posts one claimed webhook row (or finds it needs no posting); an error is retried
    /// with the worker's backoff, like an email's.
    pub(crate) fn deliver_webhook(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
    ) -> Result<Delivered> {
        match self.domain.render_webhook(conn, row) {
            Ok(WebhookDelivery::Drop(why)) => Ok(Delivered::Dropped(why)),
            Ok(WebhookDelivery::Send {
                url,
                secret,
                event,
                delivery,
                body,
            }) => {
                self.domain
                    .webhooks
                    .post(&url, &secret, &event, &delivery, body)?;
                Ok(Delivered::Sent {
                    shown_version: None,
                    chat_upto: None,
                })
            }
            Err(e) => Err(anyhow!("rendering: {e}")),
        }
    }
}
