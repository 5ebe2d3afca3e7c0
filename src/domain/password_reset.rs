//! Password reset by email: a player who forgot their password asks for a link
//! (`POST /api/v1/password-reset`), and the link's page sets a new one
//! (`POST /api/v1/password-reset/new-password`), signing them in.
//!
//! Asking does not tell whether an address has an account: every well-formed address gets
//! the same `202` and body, and the same budgets are spent. Only an address with an account
//! is mailed; that costs an insert into the outbox on top of the lookup both do, which is
//! all the difference in time.
//!
//! The link (`notify::reset_links`) is signed, stored nowhere, works for [`LINK_SECS`],
//! and only once: it is signed over the account's password hash and token generation,
//! which setting the new password changes, under the account's row lock.
//!
//! Requests are throttled by the login throttle's machinery (`auth::throttle`), an
//! instance of their own in which every request counts as a "failure": per (address,
//! client) they are refused past the address's budget; across clients per address, and
//! across addresses per client, past the budget less one, a slow lane lets one more
//! through per window, so neither passes its budget in a window. The outbox also keeps at
//! most [`LINKS_PER_HOUR`] links per account and clock hour, whatever node was asked.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use chrono::Utc;
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::accounts::{check_password, parse_email};
use super::shapes::{SignUpStatus, TokenResponse, TokenType};
use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::auth::throttle::{Attempt, Limits};
use crate::notify::letter::Letter;
use crate::notify::reset_links::{Claimed, Fingerprint, Refused};
use crate::store::kinds::OutboxKind;
use crate::store::models::{Account, NewOutbox};
use crate::store::schema::{accounts, outbox};

/// How long a reset link works.
pub const LINK_SECS: i64 = 3600;

/// Reset emails one account gets in a clock hour at most (in the database, so across
/// nodes and restarts; the throttle's budgets are per node and in memory).
pub const LINKS_PER_HOUR: usize = 5;

pub const KIND: OutboxKind = OutboxKind::PasswordReset;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordResetRequest {
    /// The account's address (the one it signs in with).
    #[schema(format = "email", max_length = 254, example = "ada@example.org")]
    pub email: String,
}

/// The answer to a reset request: the same for every address, whether it has an account
/// or not.
#[derive(Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct PasswordResetAccepted {
    /// Always `check_your_email`.
    pub status: SignUpStatus,
    /// What to do next, for people.
    pub detail: String,
}

/// A reset link's token, to check before a new password is typed.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetLinkRequest {
    /// The token of the emailed link (what follows `#/reset/`).
    pub token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPasswordRequest {
    /// The token of the emailed link (what follows `#/reset/`). In the body rather than
    /// the path, so that it never appears in a request log.
    pub token: String,
    /// The new password, under the rules of sign-up: at least 10 characters, no control
    /// characters, and hard to guess (else `422 weak_password`, with the reason in
    /// `detail`).
    #[schema(
        example = "a brand new passphrase",
        min_length = 10,
        max_length = 256,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub password: String,
}

/// The reset throttle's limits (see the module's comment for why the lanes' budgets are
/// one less).
pub fn throttle_limits(per_email: u32, per_client: u32, window: Duration) -> Limits {
    let per_email = per_email.max(1) as usize;
    let per_client = per_client.max(1) as usize;
    Limits {
        per_pair: per_email,
        per_address: per_client.saturating_sub(1).max(1),
        per_account: per_email.saturating_sub(1).max(1),
        window,
        pace: window,
    }
}

/// A reset request holding its place in the throttle (see [`Domain::begin_password_reset`]).
pub struct ResetTicket {
    lower: String,
    attempt: Attempt,
}

impl ResetTicket {
    /// When the request may go on: later than now in a slow lane.
    pub fn not_before(&self) -> Instant {
        self.attempt.not_before()
    }
}

fn accepted() -> PasswordResetAccepted {
    PasswordResetAccepted {
        status: SignUpStatus::CheckYourEmail,
        detail: format!(
            "If an account has this address, we sent it a link to choose a new password. \
             The link works once, for {} minutes.",
            LINK_SECS / 60
        ),
    }
}

fn fingerprint(a: &Account, reset_generation: i32) -> Fingerprint<'_> {
    Fingerprint {
        password_hash: &a.password_hash,
        token_generation: a.token_generation,
        reset_generation,
        email: &a.email,
    }
}

fn invalid_link() -> DomainError {
    DomainError::forbidden(
        ProblemCode::InvalidLink,
        "this password reset link is not valid: it was altered, or not made by this server",
    )
}

fn link_used() -> DomainError {
    DomainError::Gone {
        code: ProblemCode::LinkUsed,
        message: "this password reset link was used already, a newer one was sent since, or \
                  the password was changed since; use the newest link, or ask for a new one"
            .into(),
    }
}

fn refused(r: Refused) -> DomainError {
    match r {
        Refused::Invalid => invalid_link(),
        Refused::Expired => DomainError::Gone {
            code: ProblemCode::LinkExpired,
            message: format!(
                "this password reset link is older than {} minutes; ask for a new one",
                LINK_SECS / 60
            ),
        },
    }
}

impl Domain {
    /// Reserves a reset request for `email` from `client` (the peer address) in the
    /// throttle; the caller waits until `ResetTicket::not_before`, then calls
    /// [`Domain::send_password_reset`].
    pub fn begin_password_reset(&self, email: &str, client: IpAddr) -> DomainResult<ResetTicket> {
        let lower = parse_email(email)?.to_lowercase();
        let attempt = self
            .reset_throttle
            .begin(&lower, client, Instant::now())
            .map_err(|wait| DomainError::Limited {
                code: ProblemCode::TooManyPasswordResets,
                message: format!(
                    "too many password reset requests for this address or from this client; \
                     retry after {wait} s"
                ),
                retry_after_secs: wait,
            })?;
        Ok(ResetTicket { lower, attempt })
    }

    /// Mails a reset link when an account has the address; the same answer either way.
    pub fn send_password_reset(&self, ticket: ResetTicket) -> DomainResult<PasswordResetAccepted> {
        let ResetTicket { lower, attempt } = ticket;
        let sent = self.mail_reset_link(&lower);
        // Every request spends its budgets, whether an account has the address or not (the
        // throttle must not tell either). One that failed on the database gives its place
        // back.
        match &sent {
            Ok(()) => attempt.finish(false, Instant::now()),
            Err(_) => drop(attempt),
        }
        sent.map(|()| accepted())
    }

    fn mail_reset_link(&self, lower: &str) -> DomainResult<()> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| self.mail_reset_link_in(conn, lower))
    }

    /// Under the account's row lock, so that of two requests at once each link is signed
    /// over its own reset generation and only the one committed last works.
    fn mail_reset_link_in(&self, conn: &mut PgConnection, lower: &str) -> DomainResult<()> {
        let account: Option<(Account, i32)> = accounts::table
            .filter(accounts::email_lower.eq(lower))
            .select((Account::as_select(), accounts::reset_generation))
            .for_update()
            .first(conn)
            .optional()?;
        let Some((a, generation)) = account else {
            return Ok(());
        };
        let now = Utc::now().timestamp();
        let generation = generation + 1;
        let token = self
            .reset_links
            .token(a.id, now + LINK_SECS, &fingerprint(&a, generation));
        // The web client's page: the token rides in the fragment, which browsers never
        // send to a server, so it reaches no log on the way.
        let url = format!("{}/#/reset/{token}", self.public_url.trim_end_matches('/'));
        let subject = "[Turnpost] Choose a new password".to_string();
        let letter = Letter {
            subject: subject.clone(),
            heading: "Choose a new password".into(),
            paragraphs: vec![
                format!("Hello {},", a.name),
                "Someone (we hope it was you) asked to reset the password of your Turnpost \
                 account. To choose a new password, open this link:"
                    .into(),
                url.clone(),
                format!(
                    "The link works once, for {} minutes. Choosing a new password signs you \
                     out everywhere else. If you did not ask, ignore this email: your \
                     password stays as it is.",
                    LINK_SECS / 60
                ),
            ],
            link: Some((url, "Choose a new password".into())),
            ..Letter::default()
        };
        let hour = now / 3600;
        for n in 0..LINKS_PER_HOUR {
            let inserted = diesel::insert_into(outbox::table)
                .values(NewOutbox {
                    dedupe_key: format!("{KIND}:{}:{hour}:{n}", a.id),
                    account_id: Some(a.id),
                    to_address: a.email.clone(),
                    subject: subject.clone(),
                    body_text: letter.text(),
                    body_html: letter.html(),
                    kind: Some(KIND),
                    ..NewOutbox::default()
                })
                .on_conflict(outbox::dedupe_key)
                .do_nothing()
                .execute(conn)?;
            if inserted > 0 {
                // Mailed: earlier links stop working.
                diesel::update(accounts::table.find(a.id))
                    .set(accounts::reset_generation.eq(generation))
                    .execute(conn)?;
                break;
            }
        }
        Ok(())
    }

    /// Whether a reset link still works (authentic, unexpired, unused, the newest mailed),
    /// without using it: the link's page says so before anyone types a new password.
    pub fn check_reset_link(&self, token: &str) -> DomainResult<()> {
        self.fresh_claim(token).map(|_| ())
    }

    /// The account a reset link is for, as it is now, if the link is authentic, unexpired
    /// and still fresh (unused, the newest mailed).
    fn fresh_claim(&self, token: &str) -> DomainResult<(Claimed, Account)> {
        let claimed = self
            .reset_links
            .check(token, Utc::now().timestamp())
            .map_err(refused)?;
        let mut conn = self.conn()?;
        let (current, generation): (Account, i32) = accounts::table
            .find(claimed.account)
            .select((Account::as_select(), accounts::reset_generation))
            .first(&mut conn)
            .optional()?
            .ok_or_else(invalid_link)?;
        if !self
            .reset_links
            .is_fresh(&claimed, &fingerprint(&current, generation))
        {
            return Err(link_used());
        }
        Ok((claimed, current))
    }

    /// Sets the password of a reset link's account, if the link is authentic, unexpired
    /// and unused; revokes every token issued before (the generation goes up) and confirms
    /// the address (the link was read in its mailbox). Returns a token of the new
    /// generation.
    pub fn reset_password(&self, req: &NewPasswordRequest) -> DomainResult<TokenResponse> {
        // Checked before the new password is hashed, so a used link costs no hashing slot;
        // checked again under the lock below, where it counts.
        let (claimed, current) = self.fresh_claim(&req.token)?;
        check_password(&req.password, &[&current.email, &current.name])?;
        let hash = self.hashes.hash(&req.password)?;
        let mut conn = self.conn()?;
        let updated = conn.transaction::<_, DomainError, _>(|conn| {
            let (a, generation): (Account, i32) = accounts::table
                .find(claimed.account)
                .select((Account::as_select(), accounts::reset_generation))
                .for_update()
                .first(conn)
                .optional()?
                .ok_or_else(invalid_link)?;
            // A concurrent use of the same link committed first, or a newer link was
            // mailed: what it was signed over is gone.
            if !self
                .reset_links
                .is_fresh(&claimed, &fingerprint(&a, generation))
            {
                return Err(link_used());
            }
            let was_receiving = a.email_verified_at.is_some() && a.email_bouncing_at.is_none();
            let updated: Account = diesel::update(accounts::table.find(a.id))
                .set((
                    accounts::password_hash.eq(&hash),
                    accounts::token_generation.eq(a.token_generation + 1),
                    accounts::email_verified_at.eq(a.email_verified_at.or(Some(Utc::now()))),
                    accounts::email_bouncing_at.eq(None::<chrono::DateTime<Utc>>),
                    accounts::email_bounce_status.eq(None::<String>),
                    accounts::updated_at.eq(diesel::dsl::now),
                ))
                .returning(Account::as_returning())
                .get_result(conn)?;
            if !was_receiving {
                self.owe_waiting_turns(conn, a.id)?;
            }
            Ok(updated)
        })?;
        self.sessions.forget(updated.id);
        let token =
            self.tokens
                .issue(updated.id, updated.token_generation, Utc::now().timestamp())?;
        Ok(TokenResponse {
            access_token: token,
            token_type: TokenType::Bearer,
            expires_in: self.tokens.ttl_secs(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::throttle::LoginThrottle;
    use std::sync::Arc;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));

    fn ip(n: u8) -> IpAddr {
        IpAddr::V4(std::net::Ipv4Addr::new(10, 1, 0, n))
    }

    fn spend(t: &Arc<LoginThrottle>, email: &str, from: IpAddr, now: Instant) -> bool {
        match t.begin(email, from, now) {
            // A lane's turn more than a moment away would be waited for by the request.
            Ok(a) if a.not_before() <= now => {
                a.finish(false, now);
                true
            }
            _ => false,
        }
    }

    #[test]
    fn no_address_and_no_client_passes_its_budget_in_a_window() {
        let window = Duration::from_secs(3600);
        let t = Arc::new(LoginThrottle::new(throttle_limits(3, 5, window)));
        let now = Instant::now();
        // One address from one client: three, then refused.
        let got: Vec<bool> = (0..5).map(|_| spend(&t, "a@b.co", A, now)).collect();
        assert_eq!(got, [true, true, true, false, false]);
        // One address from many clients: three too.
        let got: Vec<bool> = (0..5).map(|i| spend(&t, "b@b.co", ip(i), now)).collect();
        assert_eq!(got, [true, true, true, false, false]);
        // One client, many addresses: five.
        let got: Vec<bool> = (0..7)
            .map(|i| spend(&t, &format!("c{i}@b.co"), ip(100), now))
            .collect();
        assert_eq!(got, [true, true, true, true, true, false, false]);
        // A window later, each has its budget again.
        let later = now + window + Duration::from_secs(1);
        assert!(spend(&t, "a@b.co", A, later));
        assert!(spend(&t, "b@b.co", ip(9), later));
        assert!(spend(&t, "c9@b.co", ip(100), later));
    }
}
