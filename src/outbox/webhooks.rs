//! The webhook lane of the outbox: claiming deliveries fairly (accounts take turns, the
//! one served longest ago first), politely (per receiver, one delivery at a time for
//! webhooks that answered last time and one beside it for webhooks retrying, on every
//! node), each webhook's own circuit breaker, and posting a claimed delivery through
//! `notify::webhook`.
//!
//! The breaker is the webhook's, not its receiver's: a receiver is a host and port that
//! many accounts' webhooks may share, and one of them failing (a wrong path, a bot that
//! crashed) says nothing of the others.

use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Result, anyhow};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Double, Integer, Nullable, Text, Timestamptz};

use super::worker::{Delivered, Outcome, Worker};
use crate::domain::webhooks::WebhookDelivery;
use crate::store::models::OutboxRow;

/// Failures in a row after which a webhook is paused (its breaker opens).
pub const BREAKER_FAILURES: i32 = 3;
/// The first pause, doubled with each further failure, up to [`BREAKER_MAX_PAUSE_SECS`].
pub const BREAKER_PAUSE_SECS: i64 = 30;
pub const BREAKER_MAX_PAUSE_SECS: i64 = 3600;

/// A sender's place among those working on webhooks that failed last time; given back
/// when dropped.
pub(crate) struct FailingSlot<'a>(&'a AtomicUsize);

impl Drop for FailingSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Worker {
    /// Claims a due webhook delivery: one of a webhook that answered last time if there is
    /// one, else (while fewer than half of the senders are at it) one of a webhook that
    /// failed. A webhook that does not answer thus holds one sender at a time, and only
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

    /// Claims a due webhook delivery whose webhook is not paused and whose receiver's lane
    /// is free, and takes the lane for the lease, in one statement committed before
    /// anything is posted. A receiver has two lanes: one for webhooks whose last delivery
    /// went through, one for webhooks retrying after a failure, so that a retry that
    /// hangs until the timeout never holds up another webhook's delivery. Each lane
    /// carries one delivery at a time; the receiver's row is locked with the delivery's
    /// (SKIP LOCKED), so two senders, on this server or another, never take the same lane.
    ///
    /// Accounts take turns: the delivery chosen is of the account whose webhooks were
    /// claimed longest ago (or never), then the oldest due. An account owing thousands of
    /// deliveries thus delays another account's by one delivery, not by thousands.
    /// `failed_too`: also webhooks whose last delivery failed.
    pub(crate) fn claim_webhook(
        &self,
        conn: &mut PgConnection,
        due: Option<DateTime<Utc>>,
        failed_too: bool,
    ) -> Result<Option<OutboxRow>> {
        let lease_ms = i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX);
        let row = diesel::sql_query(
            "WITH pick AS ( \
               SELECT o.id, w.id AS webhook, r.receiver, w.failures > 0 AS retrying \
               FROM outbox o \
               JOIN webhooks w ON w.id = (o.detail->>'webhook')::BIGINT \
               JOIN webhook_receivers r ON r.receiver = w.receiver \
               WHERE o.kind = 'webhook' \
                 AND o.sent_at IS NULL AND o.failed_at IS NULL AND o.dropped_at IS NULL \
                 AND o.next_attempt_at <= COALESCE($1, now()) \
                 AND (o.claimed_until IS NULL OR o.claimed_until <= now()) \
                 AND (w.paused_until IS NULL OR w.paused_until <= COALESCE($1, now())) \
                 AND ($3 OR w.failures = 0) \
                 AND CASE WHEN w.failures = 0 \
                       THEN r.busy_until IS NULL OR r.busy_until <= now() \
                       ELSE r.retry_busy_until IS NULL OR r.retry_busy_until <= now() END \
               ORDER BY (SELECT max(x.served_at) FROM webhooks x \
                          WHERE x.account_id = w.account_id) NULLS FIRST, \
                        o.next_attempt_at, o.id \
               FOR UPDATE OF o, r SKIP LOCKED LIMIT 1), \
             lane AS ( \
               UPDATE webhook_receivers SET \
                 busy_until = CASE WHEN pick.retrying THEN busy_until \
                   ELSE now() + make_interval(secs => $2::float8 / 1000) END, \
                 busy_with = CASE WHEN pick.retrying THEN busy_with ELSE pick.id END, \
                 retry_busy_until = CASE WHEN pick.retrying \
                   THEN now() + make_interval(secs => $2::float8 / 1000) \
                   ELSE retry_busy_until END, \
                 retry_busy_with = CASE WHEN pick.retrying THEN pick.id \
                   ELSE retry_busy_with END \
               FROM pick WHERE webhook_receivers.receiver = pick.receiver), \
             served AS ( \
               UPDATE webhooks SET served_at = clock_timestamp() \
               FROM pick WHERE webhooks.id = pick.webhook) \
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

    /// Frees the receiver's lane the row held and keeps its webhook's record: a success
    /// closes the breaker, a failure counts, and [`BREAKER_FAILURES`] in a row pause the
    /// webhook (30 s, doubling up to an hour). Its deliveries wait meanwhile, without
    /// using their attempts.
    pub(crate) fn settle_receiver(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
        outcome: Outcome,
    ) -> Result<()> {
        diesel::sql_query(
            "UPDATE webhook_receivers SET \
               busy_until = CASE WHEN busy_with = $2 THEN NULL ELSE busy_until END, \
               busy_with = CASE WHEN busy_with = $2 THEN NULL ELSE busy_with END, \
               retry_busy_until = CASE WHEN retry_busy_with = $2 THEN NULL \
                 ELSE retry_busy_until END, \
               retry_busy_with = CASE WHEN retry_busy_with = $2 THEN NULL \
                 ELSE retry_busy_with END \
             WHERE receiver = webhook_receiver_of($1) AND $2 IN (busy_with, retry_busy_with)",
        )
        .bind::<Text, _>(&row.to_address)
        .bind::<BigInt, _>(row.id)
        .execute(conn)?;
        let Some(webhook) = row.detail.as_ref().and_then(|d| d["webhook"].as_i64()) else {
            return Ok(());
        };
        match outcome {
            Outcome::Sent => diesel::sql_query(
                "UPDATE webhooks SET failures = 0, paused_until = NULL \
                 WHERE id = $1 AND (failures > 0 OR paused_until IS NOT NULL)",
            )
            .bind::<BigInt, _>(webhook)
            .execute(conn)?,
            Outcome::Dropped => 0,
            Outcome::Failed => diesel::sql_query(
                "UPDATE webhooks SET failures = failures + 1, \
                   paused_until = CASE WHEN failures + 1 >= $2 THEN now() + make_interval( \
                     secs => LEAST($4::float8, $3 * 2 ^ LEAST(failures + 1 - $2, 20))) \
                     ELSE paused_until END \
                 WHERE id = $1",
            )
            .bind::<BigInt, _>(webhook)
            .bind::<Integer, _>(BREAKER_FAILURES)
            .bind::<Double, _>(BREAKER_PAUSE_SECS as f64)
            .bind::<Double, _>(BREAKER_MAX_PAUSE_SECS as f64)
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
