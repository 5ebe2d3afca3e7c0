//! The outbox worker: claims a queued email (committed), sends it, marks it sent, in that
//! order; retries with exponential backoff when the transport fails. Moves never wait
//! for it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use diesel::prelude::*;
use lettre::message::{Mailbox, MultiPart, header};
use lettre::{FileTransport, Message, SmtpTransport, Transport};

use crate::store::PgPool;

/// `Auto-Submitted` (RFC 3834), so that answers to replies are not answered by robots.
#[derive(Clone)]
struct AutoSubmitted(String);

impl AutoSubmitted {
    fn auto_replied() -> Self {
        AutoSubmitted("auto-replied".into())
    }
}

impl header::Header for AutoSubmitted {
    fn name() -> header::HeaderName {
        header::HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(s: &str) -> std::result::Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted(s.to_string()))
    }

    fn display(&self) -> header::HeaderValue {
        header::HeaderValue::new(Self::name(), self.0.clone())
    }
}
use crate::store::models::OutboxRow;
use crate::store::schema::outbox;

/// Where mail goes.
pub enum Mailer {
    Smtp(Box<SmtpTransport>),
    Files(FileTransport),
}

impl Mailer {
    /// SMTP when a URL is configured (`smtp://host:port`, `smtps://user:pass@host`),
    /// else `.eml` files under `dir`.
    pub fn from_settings(smtp_url: Option<&str>, dir: PathBuf) -> Result<Mailer> {
        match smtp_url {
            Some(url) => Ok(Mailer::Smtp(Box::new(
                SmtpTransport::from_url(url)
                    .with_context(|| "invalid TURNPOST_SMTP_URL")?
                    .timeout(Some(Duration::from_secs(20)))
                    .build(),
            ))),
            None => {
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                Ok(Mailer::Files(FileTransport::new(dir)))
            }
        }
    }

    fn send(&self, message: &Message) -> Result<()> {
        match self {
            Mailer::Smtp(t) => t.send(message).map(|_| ()).context("SMTP send"),
            Mailer::Files(t) => t.send(message).map(|_| ()).context("writing .eml"),
        }
    }
}

pub struct Worker {
    pub pool: PgPool,
    pub mailer: Mailer,
    pub from: Mailbox,
    pub poll: Duration,
    pub max_attempts: i32,
    /// How long a claimed message is left alone before another worker may send it.
    pub lease: Duration,
    pub stop: Arc<AtomicBool>,
}

impl Worker {
    /// Runs until `stop` is set. Meant for its own thread.
    pub fn run(self) {
        while !self.stop.load(Ordering::Relaxed) {
            match self.send_due() {
                Ok(n) if n > 0 => continue,
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "outbox pass failed"),
            }
            std::thread::sleep(self.poll);
        }
    }

    /// Sends every due message; returns how many were handled.
    pub fn send_due(&self) -> Result<usize> {
        let mut handled = 0;
        while !self.stop.load(Ordering::Relaxed) {
            let Some(row) = self.claim()? else { break };
            let sent = self.deliver(&row);
            self.mark(&row, sent)?;
            handled += 1;
        }
        Ok(handled)
    }

    /// Claims the oldest due message for `lease` and commits the claim before anything is
    /// sent. SKIP LOCKED: several workers (or servers) never claim the same row; the lease:
    /// a crash after the send and before `mark` does not make a restarted worker send the
    /// message again at once, only after the lease (SMTP allows no better: the receiving
    /// server may have taken the message the instant before the crash).
    pub fn claim(&self) -> Result<Option<OutboxRow>> {
        let mut conn = self.pool.get()?;
        let lease_ms = i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX);
        let row = diesel::sql_query(
            "UPDATE outbox SET claimed_until = now() + make_interval(secs => $1::float8 / 1000) \
             WHERE id = (SELECT id FROM outbox \
                         WHERE sent_at IS NULL AND failed_at IS NULL \
                           AND next_attempt_at <= now() \
                           AND (claimed_until IS NULL OR claimed_until <= now()) \
                         ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) \
             RETURNING *",
        )
        .bind::<diesel::sql_types::BigInt, _>(lease_ms)
        .get_result::<OutboxRow>(&mut conn)
        .optional()?;
        Ok(row)
    }

    /// Builds and sends one claimed message.
    pub fn deliver(&self, row: &OutboxRow) -> Result<()> {
        self.build(row).and_then(|m| self.mailer.send(&m))
    }

    /// Records the result of `deliver`: sent, or retried later with exponential backoff.
    pub fn mark(&self, row: &OutboxRow, sent: Result<()>) -> Result<()> {
        let mut conn = self.pool.get()?;
        match sent {
            Ok(()) => {
                diesel::update(outbox::table.find(row.id))
                    .set((
                        outbox::sent_at.eq(diesel::dsl::now),
                        outbox::claimed_until.eq(None::<chrono::DateTime<chrono::Utc>>),
                    ))
                    .execute(&mut conn)?;
            }
            Err(e) => {
                let attempts = row.attempts + 1;
                let backoff = 2i64.saturating_pow(attempts.min(12) as u32).min(3600);
                let failed = attempts >= self.max_attempts;
                tracing::warn!(id = row.id, attempts, error = %e, "email not sent");
                diesel::update(outbox::table.find(row.id))
                    .set((
                        outbox::attempts.eq(attempts),
                        outbox::last_error.eq(format!("{e:#}")),
                        outbox::next_attempt_at
                            .eq(chrono::Utc::now() + chrono::Duration::seconds(backoff)),
                        outbox::failed_at.eq(failed.then(chrono::Utc::now)),
                        outbox::claimed_until.eq(None::<chrono::DateTime<chrono::Utc>>),
                    ))
                    .execute(&mut conn)?;
            }
        }
        Ok(())
    }

    fn build(&self, row: &OutboxRow) -> Result<Message> {
        let to: Mailbox = row.to_address.parse().context("recipient address")?;
        // A stable Message-ID per outbox row: a retry after a crash is recognisably the
        // same message to the receiving side.
        let domain = self.from.email.domain().to_string();
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&row.subject)
            .message_id(Some(format!("<turnpost.{}@{}>", row.id, domain)))
            .header(header::Date::now());
        if let Some(reply_to) = &row.reply_to {
            builder = builder.reply_to(reply_to.parse().context("reply-to address")?);
        }
        if let Some(id) = &row.in_reply_to {
            let id = format!("<{}>", id.trim_matches(|c| c == '<' || c == '>'));
            builder = builder.in_reply_to(id.clone()).references(id);
        }
        // Answers to replies are automatic: a robot on the other side must not answer back.
        if row.in_reply_to.is_some() {
            builder = builder.header(AutoSubmitted::auto_replied());
        }
        builder
            .multipart(MultiPart::alternative_plain_html(
                row.body_text.clone(),
                row.body_html.clone(),
            ))
            .context("building the message")
    }
}
