//! The account's side of email delivery: the one-click unsubscribe link (RFC 8058) and the
//! address confirmation link, both signed (see `notify::links`) and usable without
//! signing in, and delivery-status reports that mark an address as bouncing.
//!
//! An address's state, as `GET /api/v1/me` shows it (`email_status`): `unverified` until
//! the link sent to it is followed, then `verified`; `bouncing` once a report says mail to
//! it fails; `failing` once an email to it was given up after its last attempt (see
//! `mail_status`), until a later one goes out. Game email goes only to confirmed addresses (when the server requires it)
//! and never to bouncing ones; following a confirmation link clears a bounce.

use crate::domain::ProblemCode;
use crate::store::kinds::GameStatus;
use crate::store::kinds::OutboxKind;
use crate::store::kinds::{AccountId, EmailStatus, GameId};
use diesel::prelude::*;

use super::locked::{lock_game, seat_infos};
use super::mail_events::enqueue;
use super::{Domain, DomainError, DomainResult};
use crate::notify::bounce::Dsn;
use crate::notify::letter::Letter;
use crate::store::models::{Account, NewOutbox};
use crate::store::schema::{accounts, game_seats, games, outbox};

/// The address's state, from the account's row.
pub fn email_status(a: &Account) -> EmailStatus {
    if a.email_bouncing_at.is_some() {
        EmailStatus::Bouncing
    } else if a.email_failing_at.is_some() {
        EmailStatus::Failing
    } else if a.email_verified_at.is_some() {
        EmailStatus::Verified
    } else {
        EmailStatus::Unverified
    }
}

fn invalid_link() -> DomainError {
    DomainError::forbidden(
        ProblemCode::InvalidLink,
        "this link is not valid: it was altered, or not made by this server",
    )
}

impl Domain {
    /// The account an unsubscribe link names, if its signature holds.
    pub fn check_unsubscribe_link(&self, token: &str) -> DomainResult<AccountId> {
        self.links.check_unsubscribe(token).ok_or_else(invalid_link)
    }

    /// Turns the account's game emails off (turn emails, reminders, digests): the
    /// one-click unsubscribe. Idempotent.
    pub fn unsubscribe(&self, token: &str) -> DomainResult<()> {
        let account = self.check_unsubscribe_link(token)?;
        let mut conn = self.conn()?;
        let n = diesel::update(accounts::table.find(account))
            .set((
                accounts::email_notifications.eq(false),
                accounts::daily_digest.eq(false),
                accounts::updated_at.eq(diesel::dsl::now),
            ))
            .execute(&mut conn)?;
        if n == 0 {
            return Err(DomainError::not_found("account"));
        }
        Ok(())
    }

    /// Confirms the address a confirmation link was sent to; clears a bounce, and brings
    /// the turn emails of the games waiting for the player. Returns the address.
    pub fn verify_email(&self, token: &str) -> DomainResult<String> {
        let account =
            crate::notify::links::SignedLinks::verify_account(token).ok_or_else(invalid_link)?;
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let a: Account = accounts::table
                .find(account)
                .select(Account::as_select())
                .for_update()
                .first(conn)
                .optional()?
                .ok_or_else(invalid_link)?;
            if !self.links.check_verify(token, a.id, &a.email) {
                return Err(invalid_link());
            }
            let was_receiving = a.email_verified_at.is_some() && a.email_bouncing_at.is_none();
            diesel::update(accounts::table.find(a.id))
                .set((
                    accounts::email_verified_at
                        .eq(a.email_verified_at.or(Some(chrono::Utc::now()))),
                    accounts::email_bouncing_at.eq(None::<chrono::DateTime<chrono::Utc>>),
                    accounts::email_bounce_status.eq(None::<String>),
                    accounts::updated_at.eq(diesel::dsl::now),
                ))
                .execute(conn)?;
            if !was_receiving {
                self.owe_waiting_turns(conn, a.id)?;
            }
            Ok(a.email)
        })
    }

    /// Turn emails for every game waiting for `account` (its turn emails were held back).
    pub(crate) fn owe_waiting_turns(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
    ) -> DomainResult<()> {
        let waiting: Vec<(GameId, i32)> = game_seats::table
            .inner_join(games::table)
            .filter(game_seats::account_id.eq(account))
            .filter(games::status.eq(GameStatus::Active))
            .order(games::id.asc())
            .select((games::id, game_seats::seat))
            .load(conn)?;
        for (game, seat) in waiting {
            let row = lock_game(conn, game)?;
            if row.status != GameStatus::Active || !row.to_act.contains(&seat) {
                continue;
            }
            let seats = seat_infos(conn, game)?;
            if let Some(p) = seats.iter().find(|s| s.seat == seat)
                && !p.daily_digest
                && p.gets_game_mail(self.require_email_verification)
            {
                self.owe_turn(conn, game, p, row.version)?;
            }
        }
        Ok(())
    }

    /// Queues the confirmation email of `account` (at most one a minute).
    pub(crate) fn send_confirmation(
        &self,
        conn: &mut PgConnection,
        a: &Account,
    ) -> DomainResult<()> {
        let url = self.links.verify_url(a.id, &a.email);
        let subject = "[Turnpost] Confirm your email address".to_string();
        let letter = Letter {
            subject: subject.clone(),
            heading: "Confirm your email address".into(),
            paragraphs: vec![
                format!("Hello {},", a.name),
                "Please confirm that this is your address, so that Turnpost can send you your \
                 turn emails. Open this link:"
                    .into(),
                url.clone(),
                "If you did not sign up for Turnpost, ignore this email: nothing more will be \
                 sent to you."
                    .into(),
            ],
            link: Some((url, "Confirm my address".into())),
            ..Letter::default()
        };
        let minute = chrono::Utc::now().timestamp() / 60;
        enqueue(
            conn,
            vec![NewOutbox {
                dedupe_key: format!("verify:{}:{minute}", a.id),
                account_id: Some(a.id),
                to_address: a.email.clone(),
                subject,
                body_text: letter.text(),
                body_html: letter.html(),
                kind: Some(OutboxKind::Verify),
                ..NewOutbox::default()
            }],
        )?;
        Ok(())
    }

    /// `POST /api/v1/me/verify-email`: a new confirmation link, for an address that is not
    /// confirmed or bounces.
    pub fn resend_confirmation(&self, account: AccountId) -> DomainResult<()> {
        let a = self.account(account)?;
        if email_status(&a) == EmailStatus::Verified {
            return Err(DomainError::conflict(
                ProblemCode::AlreadyVerified,
                "this address is confirmed already",
            ));
        }
        let mut conn = self.conn()?;
        self.send_confirmation(&mut conn, &a)
    }

    /// Marks the failed recipients of a delivery-status report as bouncing, when the
    /// report is about an email we sent to that address (its returned headers carry our
    /// Message-ID): a forged report cannot silence anyone's mail. Returns the addresses.
    ///
    /// An email's Message-ID is written to its row before the email leaves, and the send
    /// is recorded after the transport returns: a report may arrive in between (or after a
    /// crash between the two), so the row need not be marked sent yet.
    pub(crate) fn mark_bouncing(
        &self,
        conn: &mut PgConnection,
        dsn: &Dsn,
    ) -> DomainResult<Vec<String>> {
        let Some(id) = &dsn.original_message_id else {
            return Ok(Vec::new());
        };
        let id = format!("<{}>", id.trim().trim_matches(|c| c == '<' || c == '>'));
        let mut marked = Vec::new();
        for (address, status) in &dsn.failed {
            let lower = address.trim().to_lowercase();
            let ours: bool = diesel::select(diesel::dsl::exists(
                outbox::table.filter(outbox::message_id.eq(&id)).filter(
                    diesel::dsl::sql::<diesel::sql_types::Bool>("lower(to_address) = ")
                        .bind::<diesel::sql_types::Text, _>(&lower),
                ),
            ))
            .get_result(conn)?;
            if !ours {
                continue;
            }
            let n = diesel::update(accounts::table.filter(accounts::email_lower.eq(&lower)))
                .set((
                    accounts::email_bouncing_at.eq(diesel::dsl::now),
                    accounts::email_bounce_status.eq(Some(status)),
                    accounts::updated_at.eq(diesel::dsl::now),
                ))
                .execute(conn)?;
            if n > 0 {
                metrics::counter!("turnpost_emails_bounced_total", "reported_by" => "report")
                    .increment(1);
                tracing::info!(status = %status, "an address bounces; mail to it is stopped");
                marked.push(address.clone());
            }
        }
        Ok(marked)
    }
}
