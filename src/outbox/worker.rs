//! The outbox worker: several sender threads, each claiming a due row (committed, with a
//! lease; `FOR UPDATE SKIP LOCKED`, so no two senders or servers take the same row),
//! rendering it (game emails are written only now, see `domain::deliveries`), sending it
//! through one pooled SMTP transport, and marking it sent or dropped, in that order;
//! failures are retried with exponential backoff. Moves never wait for it.
//!
//! Threads: one game and seat share a mail thread. The first email of a game to a seat
//! carries the seat's root Message-ID, `<game-{id}.seat-{n}.{tag}@{domain}>` (the tag is
//! keyed with the server secret: derived, but not guessable); every later one names it in
//! `In-Reply-To` and `References` (answers to replies put the reply after it).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamptz};
use lettre::Message;
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart, header};

use crate::domain::Domain;
use crate::domain::deliveries::{Delivery, Outgoing};
use crate::notify::headers::{AutoSubmitted, ListUnsubscribe, ListUnsubscribePost};
use crate::notify::transport::Mailer;
use crate::priority::background_priority;
use crate::store::kinds::OutboxKind;
use crate::store::models::OutboxRow;
use crate::store::outage::DATABASE;
use crate::store::schema::outbox;

/// What became of a delivery attempt, for the receiver's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Sent,
    Dropped,
    Failed,
}

/// What became of a claimed row.
#[derive(Debug)]
pub enum Delivered {
    /// Sent; for a turn email, the version it showed; the newest chat message it carried.
    Sent {
        shown_version: Option<i64>,
        chat_upto: Option<i64>,
    },
    /// Nothing to send after all, and why.
    Dropped(&'static str),
}

/// Which rows a worker sends. Emails and webhooks have senders of their own, so that an
/// email never waits behind a receiver that does not answer (each webhook may take the
/// whole timeout), and a slow mail server never holds up a webhook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Email,
    Webhooks,
}

pub struct Worker {
    /// Which rows this worker's senders claim.
    pub lane: Lane,
    /// Renders game emails; its pool is the worker's own.
    pub domain: Domain,
    pub mailer: Mailer,
    pub from: Mailbox,
    pub poll: Duration,
    pub max_attempts: i32,
    /// How long a claimed message is left alone before another worker may send it.
    pub lease: Duration,
    /// Sender threads (none: the worker's caller sends, as some tests do).
    pub senders: usize,
    pub stop: Arc<AtomicBool>,
}

impl Worker {
    /// Runs `senders` sender threads until `stop` is set. Meant for its own thread.
    pub fn run(self) {
        let me = &self;
        // Senders busy with a receiver that failed last time (webhooks): at most half of
        // them, so that receivers that answer keep being served.
        let failing = AtomicUsize::new(0);
        let failing = &failing;
        let name = match self.lane {
            Lane::Email => "outbox",
            Lane::Webhooks => "webhooks",
        };
        std::thread::scope(|s| {
            for i in 0..self.senders {
                let spawned = std::thread::Builder::new()
                    .name(format!("{name}-{i}"))
                    .spawn_scoped(s, move || me.run_sender(failing));
                if let Err(e) = spawned {
                    tracing::error!(error = %e, "an outbox sender did not start");
                }
            }
        });
    }

    fn run_sender(&self, failing: &AtomicUsize) {
        background_priority();
        while !self.stop.load(Ordering::Relaxed) {
            match self.send_pass(None, failing) {
                Ok(n) => {
                    DATABASE.back();
                    if n > 0 {
                        continue;
                    }
                }
                Err(e) => DATABASE.failed("an outbox pass", e.as_ref()),
            }
            std::thread::sleep(self.poll);
        }
    }

    /// Sends every message due now; returns how many were handled.
    pub fn send_due(&self) -> Result<usize> {
        self.send_pass(None, &AtomicUsize::new(0))
    }

    /// Sends every message due at `due` (tests pass a later time to let grace periods run
    /// out; leases still follow the clock); returns how many were handled (sent or
    /// dropped).
    pub fn send_due_at(&self, due: DateTime<Utc>) -> Result<usize> {
        self.send_pass(Some(due), &AtomicUsize::new(0))
    }

    /// One connection for the whole pass (the worker's pool has one per sender): a
    /// checkout is a round trip of its own, and a row needs several statements.
    fn send_pass(&self, due: Option<DateTime<Utc>>, failing: &AtomicUsize) -> Result<usize> {
        let mut handled = 0;
        let mut conn = self.domain.pool.get()?;
        while !self.stop.load(Ordering::Relaxed) {
            // The slot (a webhook sender at a receiver that failed) is held until marked.
            let (row, _slot) = match self.lane {
                Lane::Email => match self.claim_due(&mut conn, due)? {
                    Some(row) => (row, None),
                    None => break,
                },
                Lane::Webhooks => match self.claim_webhook_fairly(&mut conn, due, failing)? {
                    Some(claimed) => claimed,
                    None => break,
                },
            };
            let result = self.deliver_on(&mut conn, &row);
            self.mark_on(&mut conn, &row, result)?;
            handled += 1;
        }
        Ok(handled)
    }

    /// Claims the oldest message of this worker's lane due now (see [`Worker::claim_at`]).
    pub fn claim(&self) -> Result<Option<OutboxRow>> {
        self.claim_at_or_now(None)
    }

    /// Claims the oldest message of this worker's lane due at `due` (tests pass a later
    /// time, as to [`Worker::send_due_at`]).
    pub fn claim_at(&self, due: DateTime<Utc>) -> Result<Option<OutboxRow>> {
        self.claim_at_or_now(Some(due))
    }

    fn claim_at_or_now(&self, due: Option<DateTime<Utc>>) -> Result<Option<OutboxRow>> {
        let conn = &mut *self.domain.pool.get()?;
        match self.lane {
            Lane::Email => self.claim_due(conn, due),
            Lane::Webhooks => self.claim_webhook(conn, due, true),
        }
    }

    /// Claims the oldest email due (now, or at `due`) for `lease` and commits the claim
    /// before anything is sent. SKIP LOCKED: several senders (or servers) never claim the
    /// same row; the lease: a crash after the send and before `mark` does not make a
    /// restarted worker send the message again at once, only after the lease (SMTP allows
    /// no better: the receiving server may have taken the message the instant before the
    /// crash). Leases are measured on the database's clock, the same for every sender.
    fn claim_due(
        &self,
        conn: &mut PgConnection,
        due: Option<DateTime<Utc>>,
    ) -> Result<Option<OutboxRow>> {
        let lease_ms = i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX);
        // A pending turn email that took a newer turn keeps its place in the index (see
        // the `turn_email_due` migration): found at its old time, it moves to the time the
        // newer turn's grace ends, and is claimed only from then. Rows a move is writing
        // right now are skipped, not waited for: a move locks the turn rows of several seats
        // one after another, and this statement waiting on one of them while holding another
        // was a deadlock that failed the move with a 500.
        diesel::sql_query(
            "UPDATE outbox SET next_attempt_at = due_at \
             WHERE id IN (SELECT id FROM outbox \
               WHERE sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL \
                 AND kind IS DISTINCT FROM 'webhook' \
                 AND next_attempt_at <= COALESCE($1, now()) AND due_at > next_attempt_at \
                 AND (claimed_until IS NULL OR claimed_until <= now()) \
               FOR UPDATE SKIP LOCKED)",
        )
        .bind::<Nullable<Timestamptz>, _>(due)
        .execute(conn)?;
        let row = diesel::sql_query(
            "UPDATE outbox SET claimed_until = now() + make_interval(secs => $2::float8 / 1000) \
             WHERE id = (SELECT id FROM outbox \
                         WHERE sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL \
                           AND kind IS DISTINCT FROM 'webhook' \
                           AND next_attempt_at <= COALESCE($1, now()) \
                           AND (due_at IS NULL OR due_at <= COALESCE($1, now())) \
                           AND (claimed_until IS NULL OR claimed_until <= now()) \
                         ORDER BY next_attempt_at, id FOR UPDATE SKIP LOCKED LIMIT 1) \
             RETURNING *",
        )
        .bind::<Nullable<Timestamptz>, _>(due)
        .bind::<BigInt, _>(lease_ms)
        .get_result::<OutboxRow>(conn)
        .optional()?;
        Ok(row)
    }

    /// Renders and sends one claimed message (or finds it needs no sending).
    pub fn deliver(&self, row: &OutboxRow) -> Result<Delivered> {
        self.deliver_on(&mut *self.domain.pool.get()?, row)
    }

    fn deliver_on(&self, conn: &mut PgConnection, row: &OutboxRow) -> Result<Delivered> {
        // Webhooks are posted, not mailed (see `outbox::webhooks`).
        if row.kind == Some(OutboxKind::Webhook) {
            return self.deliver_webhook(conn, row);
        }
        let out = match self.domain.render_outbox_on(conn, row) {
            Ok(Delivery::Send(out)) => out,
            Ok(Delivery::Drop(why)) => return Ok(Delivered::Dropped(why)),
            Err(e) => return Err(anyhow::anyhow!("rendering: {e}")),
        };
        let message_id = self.message_id(conn, row)?;
        let message = self.build(row, &out, &message_id)?;
        if let Err(e) = self.mailer.send(&message) {
            // A mailbox refused for good is not retried (see `notify::refusal`); the
            // server's words stay with the row for the operator.
            let Some(status) = crate::notify::refusal::mailbox_refused(&e) else {
                return Err(e);
            };
            crate::domain::mail_status::refused(conn, &out.to, &status)?;
            diesel::update(outbox::table.find(row.id))
                .set(outbox::last_error.eq(format!("{e:#}")))
                .execute(conn)?;
            return Ok(Delivered::Dropped("mailbox_refused"));
        }
        Ok(Delivered::Sent {
            shown_version: out.shown_version,
            chat_upto: out.chat_upto,
        })
    }

    /// Records the result of `deliver`: sent, dropped, or retried later with exponential
    /// backoff.
    pub fn mark(&self, row: &OutboxRow, result: Result<Delivered>) -> Result<()> {
        self.mark_on(&mut *self.domain.pool.get()?, row, result)
    }

    fn mark_on(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
        result: Result<Delivered>,
    ) -> Result<()> {
        let none = None::<DateTime<Utc>>;
        let is_webhook = row.kind == Some(OutboxKind::Webhook);
        let outcome = match &result {
            Ok(Delivered::Sent { .. }) => Outcome::Sent,
            Ok(Delivered::Dropped(_)) => Outcome::Dropped,
            Err(_) => Outcome::Failed,
        };
        count(is_webhook, &outcome);
        match result {
            Ok(Delivered::Sent {
                shown_version,
                chat_upto,
            }) => {
                diesel::update(outbox::table.find(row.id))
                    .set((
                        outbox::sent_at.eq(diesel::dsl::now),
                        outbox::claimed_until.eq(none),
                        outbox::version.eq(shown_version.or(row.version)),
                    ))
                    .execute(conn)?;
                if let (Some(upto), Some(account), Some(game)) =
                    (chat_upto, row.account_id, row.game_id)
                {
                    crate::domain::chat_mail::record_mailed(conn, account, game, upto)?;
                }
            }
            Ok(Delivered::Dropped(why)) => {
                diesel::update(outbox::table.find(row.id))
                    .set((
                        outbox::dropped_at.eq(diesel::dsl::now),
                        outbox::drop_reason.eq(why),
                        outbox::claimed_until.eq(none),
                    ))
                    .execute(conn)?;
            }
            Err(e) => {
                let attempts = row.attempts + 1;
                let backoff = 2i64.saturating_pow(attempts.min(12) as u32).min(3600);
                let failed = attempts >= self.max_attempts;
                tracing::warn!(id = row.id, attempts, error = %e, "not sent");
                diesel::update(outbox::table.find(row.id))
                    .set((
                        outbox::attempts.eq(attempts),
                        outbox::last_error.eq(format!("{e:#}")),
                        outbox::next_attempt_at.eq(Utc::now() + chrono::Duration::seconds(backoff)),
                        outbox::failed_at.eq(failed.then(Utc::now)),
                        outbox::claimed_until.eq(none),
                    ))
                    .execute(conn)?;
                if failed {
                    crate::domain::mail_status::gave_up(conn, row)?;
                }
            }
        }
        if is_webhook {
            self.settle_receiver(conn, row, outcome)?;
        } else if outcome == Outcome::Sent {
            crate::domain::mail_status::reached(conn, row)?;
        }
        Ok(())
    }

    fn mail_domain(&self) -> String {
        self.from.email.domain().to_string()
    }

    /// `<{name}.{tag}@{domain}>`: the tag keeps Message-IDs from being guessed.
    fn tagged_id(&self, name: &str) -> String {
        format!(
            "<{name}.{}@{}>",
            self.domain.links.message_tag(name),
            self.mail_domain()
        )
    }

    /// The root Message-ID of the thread of `row`'s game and seat, for game mail.
    fn thread_root(&self, row: &OutboxRow) -> Option<String> {
        match (row.game_id, row.seat) {
            (Some(g), Some(s)) => Some(self.tagged_id(&format!("game-{g}.seat-{s}"))),
            _ => None,
        }
    }

    /// The row's Message-ID, chosen at the first attempt and kept for retries: the thread's
    /// root for the first game email to a seat, else one of the row's own. The unique
    /// index on `message_id` lets only one row ever take a root.
    fn message_id(&self, conn: &mut PgConnection, row: &OutboxRow) -> Result<String> {
        if let Some(id) = &row.message_id {
            return Ok(id.clone());
        }
        let is_game_mail = row.kind.is_some_and(OutboxKind::is_game_mail);
        if let (true, Some(root)) = (is_game_mail, self.thread_root(row)) {
            let took = diesel::sql_query(
                "UPDATE outbox SET message_id = $1 WHERE id = $2 AND message_id IS NULL \
                   AND NOT EXISTS (SELECT 1 FROM outbox WHERE message_id = $1)",
            )
            .bind::<Text, _>(&root)
            .bind::<BigInt, _>(row.id)
            .execute(conn);
            // Another sender took the root at this very moment (unique violation): this
            // email gets an id of its own.
            if let Ok(1) = took {
                return Ok(root);
            }
        }
        let own = self.tagged_id(&format!("turnpost.{}", row.id));
        diesel::sql_query("UPDATE outbox SET message_id = $1 WHERE id = $2 AND message_id IS NULL")
            .bind::<Text, _>(&own)
            .bind::<BigInt, _>(row.id)
            .execute(conn)?;
        Ok(own)
    }

    fn build(&self, row: &OutboxRow, out: &Outgoing, message_id: &str) -> Result<Message> {
        let to: Mailbox = out.to.parse().context("recipient address")?;
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&out.subject)
            .message_id(Some(message_id.to_string()))
            .header(header::Date::now());
        if let Some(reply_to) = &out.reply_to {
            builder = builder.reply_to(reply_to.parse().context("reply-to address")?);
        }
        // In-Reply-To: the player's reply an answer answers, else the thread's root;
        // References: the root, then the reply.
        let root = self.thread_root(row).filter(|r| r != message_id);
        let answered = out
            .answers
            .as_ref()
            .map(|id| format!("<{}>", id.trim_matches(|c| c == '<' || c == '>')));
        let references: Vec<&String> = root.iter().chain(answered.iter()).collect();
        if let Some(parent) = answered.as_ref().or(root.as_ref()) {
            builder = builder.in_reply_to(parent.clone()).references(
                references
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        // Robots must not answer: answers are auto-replied, everything else auto-generated.
        builder = builder.header(if out.is_answer {
            AutoSubmitted::replied()
        } else {
            AutoSubmitted::generated()
        });
        if let Some(url) = &out.unsubscribe {
            builder = builder
                .header(ListUnsubscribe::url(url))
                .header(ListUnsubscribePost::one_click());
        }
        let body = match &out.picture {
            None => MultiPart::alternative_plain_html(out.text.clone(), out.html.clone()),
            Some(pic) => {
                let png = ContentType::parse("image/png")?;
                let mut related = MultiPart::related()
                    .singlepart(SinglePart::html(out.html.clone()))
                    .singlepart(
                        Attachment::new_inline_with_name(pic.cid.clone(), "board.png".into())
                            .body(pic.png.clone(), png.clone()),
                    );
                if let Some(halves) = &pic.halves {
                    for ((cid, name), half) in pic
                        .half_cids()
                        .into_iter()
                        .zip(["board-left.png", "board-right.png"])
                        .zip(halves)
                    {
                        related = related.singlepart(
                            Attachment::new_inline_with_name(cid, name.into())
                                .body(half.clone(), png.clone()),
                        );
                    }
                }
                MultiPart::alternative()
                    .singlepart(SinglePart::plain(out.text.clone()))
                    .multipart(related)
            }
        };
        builder.multipart(body).context("building the message")
    }
}

/// `turnpost_emails_total{outcome}` and `turnpost_webhook_deliveries_total{outcome}`: one
/// per attempt's end, `failed` for an attempt that will be retried or given up.
fn count(is_webhook: bool, outcome: &Outcome) {
    let label = match outcome {
        Outcome::Sent if is_webhook => "delivered",
        Outcome::Sent => "sent",
        Outcome::Dropped => "dropped",
        Outcome::Failed => "failed",
    };
    if is_webhook {
        metrics::counter!("turnpost_webhook_deliveries_total", "outcome" => label).increment(1);
    } else {
        metrics::counter!("turnpost_emails_total", "outcome" => label).increment(1);
    }
}
